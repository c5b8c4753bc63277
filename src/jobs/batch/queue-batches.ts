import type { JobsContext } from "../context.js";
import type { ClaimedRow, ClaimFilter } from "../sql/claim-jobs.js";
import type { FinishedJob } from "../sql/finish-job.js";
import { queueStep, type RecordTransition } from "../sql/queue-step.js";
import type { RunnerKind } from "../types.js";
import { Coalescer } from "./coalescer.js";

/** A claim for one job by one loop. */
export interface ClaimRequest {
  readonly runner: RunnerKind;
  readonly filter?: ClaimFilter;
  /** Actions the claimer runs in-process (their jobs get runner `in-process`). */
  readonly inProcessActions?: readonly string[];
}

/** One loop's part of a step: a record, a claim, or both (record this job, claim the next). */
export interface StepRequest {
  readonly record?: RecordTransition;
  readonly claim?: ClaimRequest;
}

/** What the step did for that loop. */
export interface StepResult {
  /** The record's result (undefined: refused, nothing written, or no record asked). */
  readonly recorded?: FinishedJob;
  /** The claimed job (undefined: nothing queued matched, or no claim asked). */
  readonly claimed?: ClaimedRow;
}

const steps = new WeakMap<JobsContext, Coalescer<StepRequest, StepResult>>();

/**
 * A context's queue steps. The loops of one process (`--concurrency`, a worker's loops) that
 * record or claim at the same moment share one statement and one commit (claims with the same
 * runner and filter only); a loop that finished a job records it and claims its next in the same
 * step. A lone loop still goes out at once, with nothing waited for.
 */
export function queueSteps(ctx: JobsContext): Coalescer<StepRequest, StepResult> {
  let found = steps.get(ctx);
  if (!found) {
    found = new Coalescer<StepRequest, StepResult>(
      async (requests) => {
        const claim = requests.find((r) => r.claim)?.claim;
        const records = requests.flatMap((r) => (r.record ? [r.record] : []));
        const limit = requests.filter((r) => r.claim).length;
        const result = await queueStep(ctx.store, {
          records,
          ...(claim ? { claim: { ...claim, now: ctx.now(), limit } } : {}),
        });
        let record = 0;
        let claimed = 0;
        return requests.map((r) => ({
          recorded: r.record ? result.recorded[record++] : undefined,
          claimed: r.claim ? result.claimed[claimed++] : undefined,
        }));
      },
      (request) =>
        request.claim
          ? JSON.stringify([
              request.claim.runner,
              request.claim.filter ?? null,
              request.claim.inProcessActions ?? [],
            ])
          : undefined,
    );
    steps.set(ctx, found);
  }
  return found;
}
