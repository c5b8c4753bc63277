import type { Selectable } from "kysely";
import { KeelError } from "../core/index.js";
import type { StateExecutionsTable } from "../store/index.js";
import type { JobsContext } from "./context.js";
import { getJobRow } from "./sql/get-job.js";
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

/** One job by id; JOB_NOT_FOUND for an unknown id. */
export async function getJob(ctx: JobsContext, id: string): Promise<Job> {
  const row = await getJobRow(ctx.store.kysely, id);
  if (!row) {
    throw new KeelError("JOB_NOT_FOUND", `No job ${id}.`, {
      details: { id },
      hint: "List jobs with `keel job list` (or GET /api/jobs).",
    });
  }
  return jobFromRow(row);
}

/** One job as `keel job show` and `GET /api/jobs/{id}` give it. */
export interface JobDetail {
  readonly job: Job;
  /** Milliseconds left of a running job's TTL; null when it is not running. */
  readonly ttlRemainingMs: number | null;
  /** The job's latest execution row, if it has one. */
  readonly execution: Selectable<StateExecutionsTable> | null;
}

/**
 * A job with its TTL remaining and latest execution. Throws JOB_NOT_FOUND for an unknown id.
 *
 * @example
 * const { job, ttlRemainingMs } = await showJob(ctx, "d-20261127-083937-7439");
 */
export async function showJob(ctx: JobsContext, id: string): Promise<JobDetail> {
  const job = await getJob(ctx, id);
  const execution = await ctx.store.kysely
    .selectFrom("state_executions")
    .selectAll()
    .where("job_id", "=", id)
    .orderBy("finished_at", "desc")
    .executeTakeFirst();
  const ttlRemainingMs =
    job.status === "running" && job.expiresAt !== null
      ? Math.max(0, job.expiresAt - ctx.now())
      : null;
  return { job, ttlRemainingMs, execution: execution ?? null };
}
