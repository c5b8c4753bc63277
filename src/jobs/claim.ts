import { type ClaimRequest, queueSteps } from "./batch/queue-batches.js";
import type { JobsContext } from "./context.js";
import type { ClaimFilter } from "./sql/claim-jobs.js";
import { type JobWithNonce, jobWithNonceFromRow, type RunnerKind } from "./types.js";

/**
 * Claims the next queued job (highest priority, then oldest) in one atomic statement and marks
 * it running with `expires_at = now + ttl`. Resolves undefined on an empty queue (the CLI's
 * exit 1). The nonce comes back with the job: whoever claims must record. Claims made at the same
 * moment through one context share one statement (each still gets its own job, or none).
 *
 * @example
 * const job = await claimNextJob(ctx, { runner: "skill" });
 * if (job) await recordJob(ctx, { id: job.id, nonce: job.nonce, status: "failed", error: "skipped" });
 */
export async function claimNextJob(
  ctx: JobsContext,
  options: { runner?: RunnerKind; filter?: ClaimFilter; inProcessActions?: readonly string[] } = {},
): Promise<JobWithNonce | undefined> {
  const claim: ClaimRequest = {
    runner: options.runner ?? "skill",
    filter: options.filter,
    ...(options.inProcessActions?.length ? { inProcessActions: options.inProcessActions } : {}),
  };
  const { claimed } = await queueSteps(ctx).submit({ claim });
  return claimed ? jobWithNonceFromRow(claimed) : undefined;
}
