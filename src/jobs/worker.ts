import { pause } from "../core/index.js";
import type { ClaimRequest } from "./batch/queue-batches.js";
import { claimNextJob } from "./claim.js";
import type { JobsContext } from "./context.js";
import type { JobEvent, JobEventSink, JobEventType } from "./events/event.js";
import { newRunId } from "./ids.js";
import { reapAndCount } from "./reap.js";
import { resumeExpiredJob } from "./resume.js";
import { type Emit, runClaimedJob } from "./run.js";
import { inProcessActionIds } from "./runners/action-runner.js";
import type { JobRunner } from "./runners/runner.js";
import type { ClaimFilter } from "./sql/claim-jobs.js";
import type { JobWithNonce } from "./types.js";

/** How a long-running worker behaves. */
export interface WorkerOptions {
  readonly runner: JobRunner;
  /** Parallel claim → run → record loops in this process (default 1). */
  readonly concurrency?: number;
  readonly filter?: ClaimFilter;
  readonly emit?: JobEventSink;
  /** How long an idle loop waits before claiming again (default 1000 ms, ±25% jitter). */
  readonly pollMs?: number;
  /** How often expired jobs are reaped (default 5000 ms). */
  readonly reapEveryMs?: number;
  /** Aborting stops claiming; jobs in flight finish and are recorded, then the worker resolves. */
  readonly stop: AbortSignal;
  /** Aborting kills the runners of jobs in flight (they fail as runner-error). */
  readonly abort?: AbortSignal;
}

/** What a worker did before it stopped. */
export interface WorkerSummary {
  readonly runId: string;
  readonly jobsCompleted: number;
  readonly jobsFailed: number;
  readonly reaped: number;
}

/**
 * `keel worker`: claims and runs jobs until `stop` is aborted (SIGTERM). Any number of workers on
 * any number of machines can share one Postgres database: claims are single statements with
 * SKIP LOCKED, so each job runs once; a worker that dies mid-job leaves it to the reap after
 * its TTL. Events carry their `jobId` (job-events.md allows interleaving across jobs).
 *
 * @example
 * const stop = new AbortController();
 * process.once("SIGTERM", () => stop.abort());
 * await runWorker(ctx, { runner: cliRunner({ command: "my-llm" }), concurrency: 4, stop: stop.signal });
 */
export async function runWorker(ctx: JobsContext, options: WorkerOptions): Promise<WorkerSummary> {
  const runId = newRunId(ctx.now());
  const emit: Emit = (type: JobEventType, jobId, data) =>
    options.emit?.({ type, timestamp: Date.now(), runId, jobId, data } satisfies JobEvent);
  const pollMs = options.pollMs ?? 1000;
  const reapEveryMs = options.reapEveryMs ?? 5000;
  const totals = { completed: 0, failed: 0, reaped: 0 };
  emit("run.started", null, {
    mode: "all",
    maxJobs: null,
    filter: options.filter?.actions ? { action: options.filter.actions } : {},
    concurrency: options.concurrency ?? 1,
  });
  let lastReap = Number.NEGATIVE_INFINITY;
  // Expired in-process jobs the last reap left for a take-over (their workers died).
  let resumable = 0;
  const inProcess = options.runner.runsInProcess === true;
  const reap = async () => {
    if (Date.now() - lastReap < reapEveryMs) return;
    lastReap = Date.now();
    emit("run.reap.started", null, {});
    const reaped = await reapAndCount(ctx);
    totals.reaped += reaped.reaped.length;
    if (inProcess) resumable = reaped.resumable;
    emit("run.reap.completed", null, {
      reapedCount: reaped.reaped.length,
      reapedIds: reaped.reaped,
    });
  };
  const inProcessActions = inProcess ? inProcessActionIds(ctx) : [];
  const claim: ClaimRequest = {
    runner: options.runner.kind,
    filter: options.filter,
    ...(inProcessActions.length > 0 ? { inProcessActions } : {}),
  };
  const resume = async (): Promise<JobWithNonce | undefined> => {
    if (resumable <= 0) return undefined;
    const job = await resumeExpiredJob(ctx, { filter: options.filter });
    resumable = job ? resumable - 1 : 0;
    return job;
  };
  const loop = async () => {
    let job: JobWithNonce | undefined;
    // A job claimed with the last record is run even when the stop came meanwhile.
    while (job !== undefined || !options.stop.aborted) {
      if (!options.stop.aborted) await reap();
      if (!options.stop.aborted) job ??= await resume();
      job ??= await claimNextJob(ctx, claim);
      if (!job) {
        await pause(pollMs * (0.75 + Math.random() / 2), options.stop);
        continue;
      }
      // Record this job and claim the next in one commit, unless told to stop meanwhile.
      const outcome = await runClaimedJob(
        ctx,
        job,
        { runner: options.runner, abort: options.abort },
        emit,
        // A take-over waiting goes first: no next claim with this record then.
        () => (options.stop.aborted || resumable > 0 ? undefined : claim),
      );
      job = outcome.next;
      if (outcome.status === "completed") totals.completed++;
      else totals.failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loop));
  emit("run.summary", null, {
    jobsAttempted: totals.completed + totals.failed,
    jobsCompleted: totals.completed,
    jobsFailed: totals.failed,
    totalDurationMs: null,
    totalTokensIn: null,
    totalTokensOut: null,
  });
  return {
    runId,
    jobsCompleted: totals.completed,
    jobsFailed: totals.failed,
    reaped: totals.reaped,
  };
}
