import type { JobsContext } from "./context.js";
import { type Job, type JobStatus, jobFromRow } from "./types.js";

/** Filters of `keel job list`. */
export interface ListJobsFilter {
  readonly status?: JobStatus;
  readonly action?: string;
  readonly node?: string;
  readonly limit?: number;
}

/** Jobs, newest first. */
export async function listJobs(ctx: JobsContext, filter: ListJobsFilter = {}): Promise<Job[]> {
  let query = ctx.store.kysely.selectFrom("state_jobs").selectAll();
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.action) query = query.where("action_id", "=", filter.action);
  if (filter.node) query = query.where("node_id", "=", filter.node);
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map(jobFromRow);
}

/** How many jobs are in each state (`keel job status`). */
export async function countJobs(ctx: JobsContext): Promise<Record<JobStatus, number>> {
  const rows = await ctx.store.kysely
    .selectFrom("state_jobs")
    .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  const counts: Record<JobStatus, number> = { queued: 0, running: 0, completed: 0, failed: 0 };
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}
