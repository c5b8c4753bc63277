import { existsSync, readFileSync } from "node:fs";
import { isKeelError } from "../core/index.js";
import type { ClaimRequest } from "./batch/queue-batches.js";
import { claimNextJob } from "./claim.js";
import { absoluteIn, type JobsContext, storedPath } from "./context.js";
import type { JobEvent, JobEventSink, JobEventType } from "./events/event.js";
import { newExecutionId, newRunId } from "./ids.js";
import { reapAndCount } from "./reap.js";
import {
  type RecordAndClaim,
  type RecordRequest,
  recordAndClaimNext,
  recordJob,
} from "./record.js";
import { resumeExpiredJob } from "./resume.js";
import { inProcessActionIds } from "./runners/action-runner.js";
import type { JobRunner } from "./runners/runner.js";
import type { ClaimFilter } from "./sql/claim-jobs.js";
import { finishJob } from "./sql/finish-job.js";
import { getJobRow } from "./sql/get-job.js";
import type { JobFailureReason, JobWithNonce } from "./types.js";

/** How `keel job run` drains the queue. */
export interface RunOptions {
  /** `single` runs one job, `all` drains, `max` runs at most `max`. */
  readonly mode: "single" | "all" | "max";
  readonly max?: number;
  readonly filter?: ClaimFilter;
  readonly runner: JobRunner;
  /** Parallel claim → run → record loops (default 1, the spec's MVP). */
  readonly concurrency?: number;
  readonly emit?: JobEventSink;
  /** Stop claiming (jobs in flight finish). */
  readonly stop?: AbortSignal;
  /** Abort jobs in flight (their runner is killed; the job fails runner-error). */
  readonly abort?: AbortSignal;
  /** Emit `model.delta` events with the runner's output as it streams. */
  readonly streamOutput?: boolean;
  readonly runId?: string;
}

/** `run.summary`'s figures. */
export interface RunSummary {
  readonly runId: string;
  readonly jobsAttempted: number;
  readonly jobsCompleted: number;
  readonly jobsFailed: number;
  readonly totalDurationMs: number;
  readonly totalTokensIn: number;
  readonly totalTokensOut: number;
  readonly reapedIds: readonly string[];
}

/**
 * `keel job run`: reaps expired jobs, then claims → runs → records until the mode's limit or an
 * empty queue, emitting the spec's events in order (job-events.md): `run.started`,
 * `run.reap.started`, `run.reap.completed`, per job `job.claimed → job.spawning → (model.delta)*
 * → job.callback.received → job.completed | job.failed`, `job.skipped` when nothing is left, and
 * `run.summary`. With `concurrency` > 1 the per-job sequences interleave, each keyed by `jobId`.
 *
 * @example
 * const summary = await runJobs(ctx, { mode: "all", runner: cliRunner({ command: "my-llm" }) });
 */
export async function runJobs(ctx: JobsContext, options: RunOptions): Promise<RunSummary> {
  const runId = options.runId ?? newRunId(ctx.now());
  const emit = (type: JobEventType, jobId: string | null, data: Record<string, unknown>) =>
    options.emit?.({ type, timestamp: Date.now(), runId, jobId, data } satisfies JobEvent);
  const limit =
    options.mode === "single"
      ? 1
      : options.mode === "max"
        ? Math.max(0, options.max ?? 0)
        : Number.POSITIVE_INFINITY;
  emit("run.started", null, {
    mode: options.mode,
    maxJobs: options.mode === "max" ? limit : null,
    filter: options.filter?.actions ? { action: options.filter.actions } : {},
  });
  emit("run.reap.started", null, {});
  const reaped = await reapAndCount(ctx);
  const reapedIds = reaped.reaped;
  // Expired in-process jobs left for a take-over (their workers died): run before new claims.
  let resumable = options.runner.runsInProcess === true ? reaped.resumable : 0;
  emit("run.reap.completed", null, { reapedCount: reapedIds.length, reapedIds });
  for (const id of reapedIds) {
    emit("job.failed", id, {
      reason: "abandoned",
      message: "TTL expired before the job was recorded",
      exitCode: null,
      durationMs: null,
    });
  }
  const totals = { attempted: 0, completed: 0, failed: 0, tokensIn: 0, tokensOut: 0 };
  const started = Date.now();
  let claimed = 0;
  let skippedEmitted = false;
  const inProcessActions = options.runner.runsInProcess === true ? inProcessActionIds(ctx) : [];
  const claim: ClaimRequest = {
    runner: options.runner.kind,
    filter: options.filter,
    ...(inProcessActions.length > 0 ? { inProcessActions } : {}),
  };
  const wantMore = () => claimed < limit && !options.stop?.aborted;
  const queueEmpty = () => {
    if (skippedEmitted) return;
    skippedEmitted = true;
    emit("job.skipped", null, {
      reason: options.filter?.actions ? "filter-excluded-all" : "queue-empty",
    });
  };
  // A claim stays counted only when it found a job.
  const claimOne = async () => {
    claimed++;
    let job: JobWithNonce | undefined;
    if (resumable > 0) {
      job = await resumeExpiredJob(ctx, { filter: options.filter });
      resumable = job ? resumable - 1 : 0;
    }
    job ??= await claimNextJob(ctx, claim);
    if (!job) {
      claimed--;
      queueEmpty();
    }
    return job;
  };
  const loop = async () => {
    let job = wantMore() ? await claimOne() : undefined;
    while (job) {
      totals.attempted++;
      // Decided once the job has run: record it and claim the next in one commit if more are
      // wanted then.
      let counted = false;
      const outcome = await runClaimedJob(ctx, job, options, emit, () => {
        // A take-over waiting goes first: claimed on its own, not with this record.
        if (!wantMore() || resumable > 0) return undefined;
        claimed++;
        counted = true;
        return claim;
      });
      if (outcome.status === "completed") totals.completed++;
      else totals.failed++;
      totals.tokensIn += outcome.tokensIn;
      totals.tokensOut += outcome.tokensOut;
      if (counted && outcome.claimTried) {
        job = outcome.next;
        if (!job) {
          claimed--;
          queueEmpty();
        }
      } else {
        if (counted) claimed--;
        job = wantMore() ? await claimOne() : undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loop));
  const summary: RunSummary = {
    runId,
    jobsAttempted: totals.attempted,
    jobsCompleted: totals.completed,
    jobsFailed: totals.failed,
    totalDurationMs: Date.now() - started,
    totalTokensIn: totals.tokensIn,
    totalTokensOut: totals.tokensOut,
    reapedIds,
  };
  emit("run.summary", null, {
    jobsAttempted: summary.jobsAttempted,
    jobsCompleted: summary.jobsCompleted,
    jobsFailed: summary.jobsFailed,
    totalDurationMs: summary.totalDurationMs,
    totalTokensIn: summary.totalTokensIn,
    totalTokensOut: summary.totalTokensOut,
  });
  return summary;
}

/** Emits one event of the run (its envelope filled in by the caller). */
export type Emit = (
  type: JobEventType,
  jobId: string | null,
  data: Record<string, unknown>,
) => void;

/** How one claimed job ended, and the next job when one was claimed with its record. */
export interface OneOutcome {
  status: "completed" | "failed";
  tokensIn: number;
  tokensOut: number;
  /** Whether the next job was claimed with the record (then `next` is it, or none queued). */
  claimTried?: boolean;
  next?: JobWithNonce;
}

/**
 * Runs one claimed job and records it: job-file-missing when its file is gone, otherwise
 * job.spawning → the runner → job.callback.received → record → job.completed | job.failed. With
 * `claimNext` (asked once the job has run), the record also claims the next job, in one commit.
 */
export async function runClaimedJob(
  ctx: JobsContext,
  job: JobWithNonce,
  options: Pick<RunOptions, "runner" | "abort" | "streamOutput">,
  emit: Emit,
  claimNext?: () => ClaimRequest | undefined,
): Promise<OneOutcome> {
  emit("job.claimed", job.id, {
    actionId: job.actionId,
    actionVersion: job.actionVersion,
    nodeId: job.nodeId,
    ttlSeconds: job.ttlSeconds,
    priority: job.priority,
    // Keel's: a take-over of a running in-process job whose worker died (its run resumes).
    ...(job.resumeCount > 0 ? { resumeCount: job.resumeCount } : {}),
  });
  const file = job.filePath ? absoluteIn(ctx, job.filePath) : null;
  if (!file || !existsSync(file)) {
    const now = ctx.now();
    const finish = (db: typeof ctx.store.kysely) =>
      finishJob(db, ctx.store.dialect, {
        id: job.id,
        executionId: newExecutionId(now),
        from: ["running"],
        status: "failed",
        failureReason: "job-file-missing",
        executionStatus: "failed",
        nonce: job.nonce,
        now,
        metrics: { errorMessage: `Job file ${job.filePath ?? "(none)"} is missing` },
      });
    if (ctx.store.dialect === "sqlite") await ctx.store.transaction((tx) => finish(tx));
    else await finish(ctx.store.kysely);
    emit("job.failed", job.id, {
      reason: "job-file-missing",
      message: `Job file ${job.filePath ?? "(none)"} is missing`,
      exitCode: null,
      durationMs: 0,
    });
    return { status: "failed", tokensIn: 0, tokensOut: 0 };
  }
  emit("job.spawning", job.id, {
    runner: job.runner ?? options.runner.kind,
    command: options.runner.describe(job),
    jobFilePath: job.filePath,
  });
  const result = await options.runner.run({
    job,
    jobFileText: readFileSync(file, "utf8"),
    jobFilePath: file,
    ctx,
    timeoutMs: (job.expiresAt ?? ctx.now()) - ctx.now(),
    signal: options.abort,
    onDelta: options.streamOutput
      ? (text) => emit("model.delta", job.id, { text, channel: "assistant" })
      : undefined,
  });
  if (result.released) {
    // Left running for a take-over: nothing is recorded; this worker's part of it ends here.
    emit("job.failed", job.id, {
      reason: "abandoned",
      message: result.error ?? `Job ${job.id} was released unrecorded.`,
      exitCode: null,
      durationMs: result.durationMs,
    });
    return { status: "failed", tokensIn: 0, tokensOut: 0 };
  }
  const failed = result.failureReason !== undefined;
  const reportPath = result.reportFile ? storedPath(ctx, result.reportFile) : null;
  emit("job.callback.received", job.id, {
    status: failed ? "failed" : "completed",
    model: result.model ?? null,
    reportPath,
  });
  const request: RecordRequest = {
    id: job.id,
    nonce: job.nonce,
    claimed: job,
    status: failed ? "failed" : "completed",
    failureReason: result.failureReason,
    report: result.report,
    reportPath: reportPath ?? undefined,
    reportProblems: result.reportProblems,
    error: result.error,
    exitCode: result.exitCode ?? undefined,
    tokensIn: result.tokensIn,
    tokensOut: result.tokensOut,
    durationMs: result.durationMs,
    model: result.model,
  };
  const nextClaim = claimNext?.();
  const step: RecordAndClaim = nextClaim
    ? await recordAndClaimNext(ctx, request, nextClaim)
    : await recordJob(ctx, request).then(
        (outcome) => ({ result: { ok: true, outcome }, next: undefined }) as const,
        (error: unknown) => ({ result: { ok: false, error }, next: undefined }) as const,
      );
  const next = nextClaim ? { claimTried: true, next: step.next } : {};
  if (step.result.ok) {
    const recorded = step.result.outcome;
    const tokens = { tokensIn: result.tokensIn ?? 0, tokensOut: result.tokensOut ?? 0 };
    if (recorded.status === "completed") {
      emit("job.completed", job.id, {
        durationMs: result.durationMs,
        tokensIn: result.tokensIn ?? null,
        tokensOut: result.tokensOut ?? null,
        model: result.model ?? null,
        reportPath,
      });
      return { status: "completed", ...tokens, ...next };
    }
    emit("job.failed", job.id, {
      reason: recorded.failureReason,
      message: result.error ?? recorded.problems.map((p) => `${p.path} ${p.message}`).join("; "),
      exitCode: result.exitCode ?? null,
      durationMs: result.durationMs,
    });
    return { status: "failed", ...tokens, ...next };
  }
  const error = step.result.error;
  // Taken over by another worker after its TTL (a new nonce): that worker records it.
  if (isKeelError(error) && error.code === "JOB_NONCE_MISMATCH") {
    emit("job.failed", job.id, {
      reason: "abandoned",
      message: `Job ${job.id} outlived its TTL here and was taken over by another worker, which records it; this worker's result was dropped.`,
      exitCode: result.exitCode ?? null,
      durationMs: result.durationMs,
    });
    return { status: "failed", tokensIn: 0, tokensOut: 0, ...next };
  }
  // Cancelled or reaped while it ran: the job is already failed; say so and go on.
  if (isKeelError(error) && error.code === "JOB_NOT_RUNNING") {
    const row = await getJobRow(ctx.store.kysely, job.id);
    emit("job.failed", job.id, {
      reason: (row?.failure_reason ?? "abandoned") satisfies JobFailureReason,
      message: error.message,
      exitCode: result.exitCode ?? null,
      durationMs: result.durationMs,
    });
    return { status: "failed", tokensIn: 0, tokensOut: 0, ...next };
  }
  // Anything else (the database gone) ends the run; a next job claimed with this record stays
  // running until the reap fails it as abandoned after its TTL.
  throw error;
}
