import type { JobsContext } from "./context.js";
import { newNonce } from "./ids.js";
import type { ClaimFilter } from "./sql/claim-jobs.js";
import { resumeExpiredRow } from "./sql/resume-job.js";
import { type JobWithNonce, jobWithNonceFromRow } from "./types.js";

/**
 * Takes over one in-process job whose worker died: a `running` job of the in-process runner
 * whose TTL has passed and that has resumes left (`jobs.max_resumes`). It stays running under a
 * new claim — new `expires_at`, new nonce (the dead worker's record is refused with exit 4),
 * `resumeCount + 1` — and the in-process runner continues its durable run from the last
 * checkpoint instead of starting it again. Resolves undefined when there is none.
 *
 * @example
 * const job = (await resumeExpiredJob(ctx)) ?? (await claimNextJob(ctx, { runner: "cli" }));
 */
export async function resumeExpiredJob(
  ctx: JobsContext,
  options: { filter?: ClaimFilter } = {},
): Promise<JobWithNonce | undefined> {
  const row = await resumeExpiredRow(ctx.store.kysely, ctx.store.dialect, {
    now: ctx.now(),
    nonce: newNonce(),
    maxResumes: ctx.config.maxResumes,
    filter: options.filter,
  });
  return row ? jobWithNonceFromRow(row) : undefined;
}
