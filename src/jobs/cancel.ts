import { KeelError } from "../core/index.js";
import type { JobsContext } from "./context.js";
import { newExecutionId } from "./ids.js";
import { finishJob } from "./sql/finish-job.js";
import { getJobRow } from "./sql/get-job.js";
import { type Job, jobFromRow } from "./types.js";

/**
 * `keel job cancel`: a queued or running job fails as `user-cancelled` (its execution record says
 * `cancelled`); a running job's runner is not interrupted, its later record gets exit 2. A
 * terminal job is refused with JOB_ALREADY_TERMINAL (exit 2), an unknown id with JOB_NOT_FOUND.
 */
export async function cancelJob(ctx: JobsContext, id: string): Promise<Job> {
  const now = ctx.now();
  const finish = (db: typeof ctx.store.kysely) =>
    finishJob(db, ctx.store.dialect, {
      id,
      executionId: newExecutionId(now),
      from: ["queued", "running"],
      status: "failed",
      failureReason: "user-cancelled",
      executionStatus: "cancelled",
      now,
      metrics: {},
    });
  const done =
    ctx.store.dialect === "sqlite"
      ? await ctx.store.transaction((tx) => finish(tx))
      : await finish(ctx.store.kysely);
  const row = await getJobRow(ctx.store.kysely, id);
  if (!row) {
    throw new KeelError("JOB_NOT_FOUND", `No job ${id}.`, {
      details: { id },
      hint: "List jobs with `keel job list`.",
    });
  }
  if (!done) {
    throw new KeelError(
      "JOB_ALREADY_TERMINAL",
      `Job ${id} is already ${row.status}; it cannot be cancelled.`,
      {
        details: { id, status: row.status, failureReason: row.failure_reason },
        hint: "Only queued and running jobs can be cancelled.",
      },
    );
  }
  return jobFromRow(row);
}
