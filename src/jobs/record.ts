import { timingSafeEqual } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import { KeelError } from "../core/index.js";
import type { ValidationProblem } from "../runtime/index.js";
import type { Action } from "./actions/action.js";
import { summarizedKind } from "./actions/builtins.js";
import { type ClaimRequest, queueSteps } from "./batch/queue-batches.js";
import { claimNextJob } from "./claim.js";
import { contentHash } from "./content-hash.js";
import { type JobsContext, storedPath } from "./context.js";
import { newExecutionId } from "./ids.js";
import { loadReportFile } from "./report-file.js";
import type { JobsDb } from "./sql/db.js";
import { type FinishedJob, finishJob } from "./sql/finish-job.js";
import { getJobRow } from "./sql/get-job.js";
import { type JobFailureReason, type JobWithNonce, jobWithNonceFromRow } from "./types.js";

/** What `keel record` (or a runner) reports for a running job. */
export interface RecordRequest {
  readonly id: string;
  /** The job's nonce; absent or different is JOB_NONCE_MISMATCH (exit 4). */
  readonly nonce: string | undefined;
  readonly status: "completed" | "failed";
  /** A report file (relative to the current directory) for `completed`. */
  readonly reportFile?: string;
  /** The report itself, already parsed (runners); beats `reportFile`. */
  readonly report?: unknown;
  /** Where `report` was written, stored as the execution's report_path. */
  readonly reportPath?: string;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly durationMs?: number;
  readonly model?: string;
  readonly error?: string;
  readonly exitCode?: number;
  /** A failure reason other than a plain failed record (runners: runner-error, timeout, …). */
  readonly failureReason?: JobFailureReason;
  /**
   * The job as the caller claimed it (runners): saves reading the row first. The write is still
   * guarded by id, nonce and state, and a refusal is diagnosed as without it.
   */
  readonly claimed?: JobWithNonce;
  /** Problems already found with the report (a runner's unparseable output): report-invalid. */
  readonly reportProblems?: readonly ValidationProblem[];
}

/** What a record did. */
export interface RecordOutcome {
  readonly jobId: string;
  readonly executionId: string;
  readonly status: "completed" | "failed";
  readonly failureReason: JobFailureReason | null;
  /** The report's problems when it failed its schema (then `failureReason` is report-invalid). */
  readonly problems: readonly ValidationProblem[];
  readonly reportPath: string | null;
  readonly durationMs: number | null;
  readonly finished: FinishedJob;
}

type JobRowOf = Awaited<ReturnType<typeof getJobRow>>;

/** The spec's checks, in order: 5 unknown id, 4 nonce mismatch, 2 not running. */
function diagnose(request: RecordRequest, job: JobRowOf): NonNullable<JobRowOf> {
  if (!job) {
    throw new KeelError("JOB_NOT_FOUND", `No job ${request.id}.`, {
      details: { id: request.id },
      hint: "Check the id (`keel job list`); a pruned job's history stays in `keel history`.",
    });
  }
  if (!nonceMatches(request.nonce, job.nonce)) {
    throw new KeelError(
      "JOB_NONCE_MISMATCH",
      `The nonce does not match job ${request.id}; nothing was recorded.`,
      {
        details: { id: request.id },
        hint: "Pass the nonce the claim returned for this job (`keel job claim --json`).",
      },
    );
  }
  if (job.status !== "running") {
    throw new KeelError(
      "JOB_NOT_RUNNING",
      `job not in running state: ${request.id} is ${job.status}${job.failure_reason ? ` (${job.failure_reason})` : ""}; nothing was recorded.`,
      {
        details: { id: request.id, status: job.status, failureReason: job.failure_reason },
        hint:
          job.failure_reason === "abandoned"
            ? "The job outlived its TTL and was reaped; submit it again."
            : "Only a running job can be recorded.",
      },
    );
  }
  return job;
}

function nonceMatches(given: string | undefined, stored: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Records a running job's outcome (dispatch-lifecycle.md, "Record"), with the spec's checks in
 * its order: an unknown id is JOB_NOT_FOUND (exit 5); a missing or wrong nonce JOB_NONCE_MISMATCH
 * (exit 4) with nothing changed; a job not running JOB_NOT_RUNNING (exit 2: a late callback after
 * a reap or cancel). A `completed` report is then validated against report-base and the action's
 * schema; one that fails (or is missing, too large, not JSON) fails the job as `report-invalid`.
 * The transition and the execution record are written atomically; a built-in summarizer's valid
 * report also lands in `state_summaries` in the same transaction.
 */
export function recordJob(ctx: JobsContext, request: RecordRequest): Promise<RecordOutcome> {
  return recordCore(ctx, request, undefined, {});
}

/** A record together with the claim of the next job, as a runner's loop makes them. */
export interface RecordAndClaim {
  /** The record's outcome, or what refused it (the error recordJob would have thrown). */
  readonly result: { ok: true; outcome: RecordOutcome } | { ok: false; error: unknown };
  /** The next job, claimed in the same commit (undefined: nothing queued matched). */
  readonly next: JobWithNonce | undefined;
}

/**
 * Records a job and claims the next one in the same commit — one commit per job for a loop,
 * shared with the other loops of the process that step at the same moment. The next job is
 * handed back even when the record is refused, so it is never left claimed and unrun.
 *
 * @example
 * let job = await claimNextJob(ctx, { runner: "in-process" });
 * while (job) {
 *   const report = await work(job);
 *   const step = await recordAndClaimNext(ctx, { id: job.id, nonce: job.nonce, claimed: job, status: "completed", report }, { runner: "in-process" });
 *   job = step.next;
 * }
 */
export async function recordAndClaimNext(
  ctx: JobsContext,
  request: RecordRequest,
  claim: ClaimRequest,
): Promise<RecordAndClaim> {
  const got: { next?: JobWithNonce; claimed?: boolean } = {};
  try {
    const outcome = await recordCore(ctx, request, claim, got);
    return { result: { ok: true, outcome }, next: got.next };
  } catch (error) {
    // Refused before the step ran (an unknown id, a wrong nonce): claim on its own.
    if (!got.claimed) got.next = await claimNextJob(ctx, claim);
    return { result: { ok: false, error }, next: got.next };
  }
}

async function recordCore(
  ctx: JobsContext,
  request: RecordRequest,
  claimNext: ClaimRequest | undefined,
  got: { next?: JobWithNonce; claimed?: boolean },
): Promise<RecordOutcome> {
  const db = ctx.store.kysely;
  // A runner recording the job it claimed already knows the row: the guarded write below
  // re-checks id, nonce and state, and a refusal is diagnosed in the spec's order after it.
  const job =
    request.claimed ?? jobWithNonceFromRow(diagnose(request, await getJobRow(db, request.id)));
  const action: Action | undefined = ctx.actions.actions.find(
    (a) => a.manifest.id === job.actionId,
  );
  let status = request.status;
  let failureReason: JobFailureReason | null =
    status === "failed" ? (request.failureReason ?? "runner-error") : null;
  let problems: ValidationProblem[] = [...(request.reportProblems ?? [])];
  let report: unknown;
  let reportPath: string | null = request.reportPath ?? null;
  if (status === "completed") {
    if (request.report !== undefined) {
      report = request.report;
    } else if (request.reportFile !== undefined) {
      const file = isAbsolute(request.reportFile)
        ? request.reportFile
        : resolve(request.reportFile);
      reportPath = storedPath(ctx, file);
      const loaded = loadReportFile(file, ctx.config.maxReportBytes);
      if (loaded.ok) report = loaded.report;
      else problems.push(loaded.problem);
    } else if (problems.length === 0) {
      problems.push({
        code: "missing",
        path: "/",
        message: "A completed job needs a report.",
        expected: "--report <file>",
        actual: "no report",
        hint: "Pass --report with the report's JSON file.",
      });
    }
    if (problems.length === 0) {
      if (!action) {
        problems.push({
          code: "unknown_action",
          path: "/",
          message: `Action ${job.actionId} is no longer installed, so its report cannot be checked.`,
          expected: "an installed action",
          actual: job.actionId,
          hint: "Re-enable the plugin that provides it.",
        });
      } else {
        problems = action.validateReport(report);
      }
    }
    if (problems.length > 0) {
      status = "failed";
      failureReason = "report-invalid";
    }
  }
  const now = ctx.now();
  const errorMessage =
    request.error ??
    (problems.length > 0 ? problems.map((p) => `${p.path} ${p.message}`).join("; ") : null);
  const transition = {
    id: request.id,
    executionId: newExecutionId(now),
    status,
    failureReason,
    executionStatus: status,
    nonce: request.nonce ?? "",
    now,
    metrics: {
      exitCode: request.exitCode ?? null,
      durationMs: request.durationMs ?? null,
      tokensIn: request.tokensIn ?? null,
      tokensOut: request.tokensOut ?? null,
      reportPath,
      errorMessage,
    },
  };
  const kind = status === "completed" ? summarizedKind(job.actionId) : null;
  // A summary is written in the record's own transaction; any other record joins the context's
  // group commit (one statement on Postgres, one transaction on SQLite, for every record that
  // lands at the same moment).
  let finished: FinishedJob | undefined;
  if (kind === null || !action) {
    const step = await queueSteps(ctx).submit({ record: transition, claim: claimNext });
    finished = step.recorded;
    got.claimed = claimNext !== undefined;
    if (step.claimed) got.next = jobWithNonceFromRow(step.claimed);
  } else {
    finished = await ctx.store.transaction(async (tx) => {
      const done = await finishJob(tx, ctx.store.dialect, { ...transition, from: ["running"] });
      if (done) await writeSummary(tx, action, done, report, now);
      return done;
    });
    if (claimNext) {
      got.claimed = true;
      got.next = await claimNextJob(ctx, claimNext);
    }
  }
  if (!finished) {
    // Refused by the guard: unknown id, wrong nonce, or no longer running (a reap or a cancel
    // won the race). Diagnosed in the spec's order; nothing was written.
    diagnose(request, await getJobRow(db, request.id));
    throw new KeelError(
      "JOB_NOT_RUNNING",
      `job not in running state: ${request.id} left running while recording; nothing was recorded.`,
      {
        details: { id: request.id },
      },
    );
  }
  return {
    jobId: request.id,
    executionId: finished.executionId,
    status,
    failureReason,
    problems,
    reportPath,
    durationMs: request.durationMs ?? now - finished.startedAt,
    finished,
  };
}

/**
 * Stores a summarizer's report as the node's summary — only while the node is unchanged since
 * submit (its content hash still matches): a summary of older content would hide its staleness.
 */
async function writeSummary(
  tx: JobsDb,
  action: Action,
  done: FinishedJob,
  report: unknown,
  now: number,
): Promise<void> {
  const node = await tx
    .selectFrom("scan_nodes")
    .select(["kind", "body_hash", "frontmatter_hash"])
    .where("path", "=", done.nodeId)
    .executeTakeFirst();
  if (!node) return;
  const current = contentHash({
    actionId: done.actionId,
    actionVersion: done.actionVersion,
    bodyHash: node.body_hash,
    frontmatterHash: node.frontmatter_hash,
    promptTemplateHash: action.promptTemplateHash,
  });
  if (current !== done.contentHash) return;
  const row = {
    node_id: done.nodeId,
    kind: node.kind,
    summarizer_action_id: done.actionId,
    summarizer_version: done.actionVersion,
    body_hash_at_generation: node.body_hash,
    generated_at: now,
    summary_json: JSON.stringify(report),
  };
  await tx
    .insertInto("state_summaries")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["node_id", "summarizer_action_id"]).doUpdateSet({
        kind: row.kind,
        summarizer_version: row.summarizer_version,
        body_hash_at_generation: row.body_hash_at_generation,
        generated_at: row.generated_at,
        summary_json: row.summary_json,
      }),
    )
    .execute();
}
