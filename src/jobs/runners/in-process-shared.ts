import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AutonomyLevel, GovernedRunResult } from "../../runtime/index.js";
import type { JobsContext } from "../context.js";
import type { JobWithNonce } from "../types.js";
import type { RunnerResult } from "./runner.js";

/** How the in-process runner starts its runs. */
export interface InProcessRunnerOptions {
  /** The runs' autonomy level (default A2): with a tool's risk it decides the tool's gate. */
  readonly autonomy?: AutonomyLevel;
  /** What the runs hold (tools' `permissions` are checked against it). */
  readonly capabilities?: readonly string[];
}

/** What an in-process run of a job came to (the runner adds the duration). */
export type InProcessOutcome = Omit<RunnerResult, "durationMs">;

/**
 * The thread a job's run lives on: one per job, so a take-over finds the run it continues.
 *
 * @example
 * const [run] = await runtime.runs.list({ threadId: jobThreadId(job.id), limit: 1 });
 */
export function jobThreadId(jobId: string): string {
  return `job:${jobId}`;
}

/** What a run of a job is given, before it is cut to the fields its document declares. */
export function jobInput(job: JobWithNonce, jobFileText: string): Record<string, unknown> {
  return {
    job_id: job.id,
    action_id: job.actionId,
    action_version: job.actionVersion,
    node_path: job.nodeId,
    prompt: jobFileText,
  };
}

/** A run that did not end: the job fails as runner-error, naming the run and what it waits for. */
export function notEnded(result: Pick<GovernedRunResult, "run" | "waitingFor">): InProcessOutcome {
  const waiting = result.waitingFor.map((w) => w.how_to_continue).join("; ");
  return {
    failureReason: "runner-error",
    error: `Run ${result.run.id} of this job is ${result.run.status}${waiting ? `, waiting: ${waiting}` : ""}; a job cannot wait for a person (docs/jobs.md).`,
  };
}

/** A run that failed or was cancelled: the job fails as runner-error, naming the run. */
export function runFailed(run: GovernedRunResult["run"]): InProcessOutcome {
  return {
    failureReason: "runner-error",
    error: `Run ${run.id} of this job ${run.status}${run.error ? `: ${run.error.message}` : ""}.`,
  };
}

/** The final state as the report (written to `<.keel>/reports/<id>.json`). */
export function reportOf(
  ctx: JobsContext,
  job: JobWithNonce,
  state: Record<string, unknown>,
  given: Record<string, unknown>,
): InProcessOutcome {
  const report = Object.fromEntries(
    Object.entries(state).filter(
      ([key, value]) => !key.startsWith("__") && !(key in given) && value !== undefined,
    ),
  );
  const dir = join(ctx.keelDir, "reports");
  mkdirSync(dir, { recursive: true });
  const reportFile = join(dir, `${job.id}.json`);
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return { report, reportFile };
}
