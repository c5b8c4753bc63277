import type { JobsContext } from "./context.js";
import { type ReapResult, reapJobs } from "./sql/reap-jobs.js";

/**
 * Fails every running job past its TTL as `abandoned` (with its execution record) and resolves
 * their ids. An expired in-process job with resumes left (`jobs.max_resumes`) is not reaped: a
 * worker resumes it from its checkpoint. `keel job run` and `keel worker` call it before they
 * claim.
 *
 * @example
 * const reaped = await reapExpired(ctx); // ids of the jobs failed as abandoned
 */
export async function reapExpired(ctx: JobsContext): Promise<string[]> {
  return (await reapAndCount(ctx)).reaped;
}

/** {@link reapExpired}, also counting the expired jobs left for a worker to resume. */
export function reapAndCount(ctx: JobsContext): Promise<ReapResult> {
  const now = ctx.now();
  const max = ctx.config.maxResumes;
  return ctx.store.dialect === "sqlite"
    ? ctx.store.transaction((tx) => reapJobs(tx, "sqlite", now, max))
    : reapJobs(ctx.store.kysely, "postgres", now, max);
}
