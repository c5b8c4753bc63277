import type { JobsContext } from "./context.js";
import { type ClaimFilter, claimJob } from "./sql/claim-job.js";
import { type JobWithNonce, jobWithNonceFromRow, type RunnerKind } from "./types.js";

/**
 * Claims the next queued job (highest priority, then oldest) in one atomic statement and marks
 * it running with `expires_at = now + ttl`. Resolves undefined on an empty queue (the CLI's
 * exit 1). The nonce comes back with the job: whoever claims must record.
 *
 * @example
 * const job = await claimNextJob(ctx, { runner: "skill" });
 * if (job) await recordJob(ctx, { id: job.id, nonce: job.nonce, status: "failed", error: "skipped" });
 */
export async function claimNextJob(
  ctx: JobsContext,
  options: { runner?: RunnerKind; filter?: ClaimFilter } = {},
): Promise<JobWithNonce | undefined> {
  const row = await claimJob(ctx.store.kysely, {
    now: ctx.now(),
    runner: options.runner ?? "skill",
    skipLocked: ctx.store.supportsSkipLocked,
    filter: options.filter,
  });
  return row ? jobWithNonceFromRow(row) : undefined;
}
