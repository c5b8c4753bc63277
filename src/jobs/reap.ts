import type { JobsContext } from "./context.js";
import { reapJobs } from "./sql/reap-jobs.js";

/**
 * Fails every running job past its TTL as `abandoned` (with its execution record) and resolves
 * their ids. `keel job run` and `keel worker` call it before they claim.
 */
export function reapExpired(ctx: JobsContext): Promise<string[]> {
  const now = ctx.now();
  return ctx.store.dialect === "sqlite"
    ? ctx.store.transaction((tx) => reapJobs(tx, "sqlite", now))
    : reapJobs(ctx.store.kysely, "postgres", now);
}
