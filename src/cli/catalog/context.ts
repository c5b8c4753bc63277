import { homedir } from "node:os";
import { resolve } from "node:path";
import {
  type CatalogConfig,
  type DisabledKinds,
  type DiscoveredPlugin,
  type ExtensionRegistry,
  readCatalogConfig,
  scopeRegistry,
} from "../../catalog/index.js";
import { findProjectDir, readPluginState, type Store } from "../../store/index.js";
import { openCliStore, type StoreCliOptions } from "../scope.js";

/** `SKILL_MAP_DISABLE_ALL_<KIND>=1` (or `KEEL_DISABLE_ALL_<KIND>=1`) switches a kind off. */
export function disabledKindsFromEnv(env: NodeJS.ProcessEnv = process.env): DisabledKinds {
  const on = (kind: string) =>
    env[`SKILL_MAP_DISABLE_ALL_${kind}`] === "1" || env[`KEEL_DISABLE_ALL_${kind}`] === "1";
  return { adapters: on("ADAPTERS"), detectors: on("DETECTORS"), rules: on("RULES") };
}

/**
 * The folder a scope's node paths are relative to: the home folder (`-g`), or the project — the
 * nearest folder from the working directory upwards holding `.keel/` (where the other verbs find
 * the database), else the working directory itself.
 */
export function scopeRoot(options: StoreCliOptions): string {
  if (isGlobal(options)) return homedir();
  const cwd = resolve(process.cwd());
  return findProjectDir(cwd) ?? cwd;
}

/** `-g`, or `SKILL_MAP_SCOPE=global` / `KEEL_SCOPE=global`. */
export function isGlobal(options: StoreCliOptions): boolean {
  return (
    options.global === true ||
    process.env.SKILL_MAP_SCOPE === "global" ||
    process.env.KEEL_SCOPE === "global"
  );
}

/** What a catalog verb works with: the scope root, its config, the registry, the store. */
export interface CatalogContext {
  readonly root: string;
  readonly config: CatalogConfig;
  readonly registry: ExtensionRegistry;
  /** The scope's plugins and their status (enabled ones are in the registry). */
  readonly plugins: readonly DiscoveredPlugin[];
  readonly scope: "project" | "global";
}

/**
 * Reads the scope's catalog config and builds the registry: the built-ins and the scope's
 * enabled plugins (as the config file and the store's `config_plugins` switch them, the store's
 * winning), minus disabled kinds. A plugin that could not be used is named on stderr (`keel`
 * goes on without it); one switched off is not.
 */
export async function catalogContext(
  options: StoreCliOptions,
  store: Store,
): Promise<CatalogContext> {
  const root = scopeRoot(options);
  const config = readCatalogConfig(root);
  const { registry, plugins } = await scopeRegistry(root, config, {
    disabled: disabledKindsFromEnv(),
    state: () => readPluginState(store),
  });
  for (const plugin of plugins) {
    if (plugin.status === "enabled" || plugin.status === "disabled") continue;
    process.stderr.write(
      `keel: plugin ${plugin.id} not loaded (${plugin.status}): ${plugin.statusReason}\n`,
    );
  }
  return { root, config, registry, plugins, scope: isGlobal(options) ? "global" : "project" };
}

/** Runs `fn` with the verb's store open, closing it after. */
export async function withStore<T>(
  options: StoreCliOptions,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openCliStore(options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
