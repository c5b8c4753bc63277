import { dirname, isAbsolute, join, relative } from "node:path";
import { discoverStorePlugins, type Store } from "../store/index.js";
import { type ActionRegistry, loadActions } from "./actions/registry.js";
import { type JobsConfig, readJobsConfig } from "./config.js";

/** What every job operation works with: the store, the actions, the settings, the folders. */
export interface JobsContext {
  readonly store: Store;
  readonly actions: ActionRegistry;
  readonly config: JobsConfig;
  /** The scope's `.keel` folder: job files go to `jobs/`, reports to `reports/`. */
  readonly keelDir: string;
  /** The folder node paths and stored file paths are relative to (the `.keel` folder's parent). */
  readonly root: string;
  /** Milliseconds since the epoch (a test clock may replace it). */
  now(): number;
}

/**
 * Builds the context for a store: the built-in actions and the enabled plugins' actions, and the
 * `jobs.*` preferences.
 *
 * @example
 * const ctx = await openJobsContext(store);
 * const { job } = await submitJob(ctx, { actionId: "skill-summarizer", nodePath: "skills/a.md" });
 */
export async function openJobsContext(
  store: Store,
  options: { now?: () => number; config?: Partial<JobsConfig> } = {},
): Promise<JobsContext> {
  const keelDir = store.location.keelDir;
  return {
    store,
    actions: loadActions(await discoverStorePlugins(store)),
    config: { ...(await readJobsConfig(store.kysely)), ...options.config },
    keelDir,
    root: dirname(keelDir),
    now: options.now ?? Date.now,
  };
}

/** A stored path (relative to the root) as an absolute one. */
export function absoluteIn(ctx: Pick<JobsContext, "root">, path: string): string {
  return isAbsolute(path) ? path : join(ctx.root, path);
}

/** An absolute path as stored: relative to the root. */
export function storedPath(ctx: Pick<JobsContext, "root">, path: string): string {
  return relative(ctx.root, path);
}
