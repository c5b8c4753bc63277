import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { JobsContext } from "./context.js";
import { absoluteIn } from "./context.js";
import { pruneJobs } from "./sql/prune-jobs.js";

/** What `keel job prune` removed. */
export interface PruneResult {
  readonly prunedJobs: readonly string[];
  readonly removedFiles: readonly string[];
}

/**
 * Applies retention (`jobs.retention.completed`, default 30 days; `jobs.retention.failed`,
 * default never): deletes old terminal jobs and their job files. With `orphanFiles`, it also
 * removes job files no job row names — the only way they are ever deleted.
 */
export async function pruneJobFiles(
  ctx: JobsContext,
  options: { orphanFiles?: boolean } = {},
): Promise<PruneResult> {
  const now = ctx.now();
  const { retentionCompletedSeconds: done, retentionFailedSeconds: failed } = ctx.config;
  const deleted = await pruneJobs(ctx.store.kysely, {
    completedBefore: done === null ? null : now - done * 1000,
    failedBefore: failed === null ? null : now - failed * 1000,
  });
  const removedFiles: string[] = [];
  for (const row of deleted) {
    if (!row.file_path) continue;
    const file = absoluteIn(ctx, row.file_path);
    if (existsSync(file)) {
      rmSync(file, { force: true });
      removedFiles.push(file);
    }
  }
  if (options.orphanFiles) {
    const dir = join(ctx.keelDir, "jobs");
    if (existsSync(dir)) {
      const rows = await ctx.store.kysely.selectFrom("state_jobs").select(["id"]).execute();
      const known = new Set(rows.map((row) => row.id));
      for (const name of readdirSync(dir)) {
        if (!name.endsWith(".md") || known.has(name.slice(0, -3))) continue;
        rmSync(join(dir, name), { force: true });
        removedFiles.push(join(dir, name));
      }
    }
  }
  return { prunedJobs: deleted.map((row) => row.id), removedFiles };
}
