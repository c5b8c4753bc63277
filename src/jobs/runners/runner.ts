import type { ValidationProblem } from "../../runtime/index.js";
import type { JobsContext } from "../context.js";
import type { JobFailureReason, JobWithNonce, RunnerKind } from "../types.js";

/** What a runner learned from executing one job. */
export interface RunnerResult {
  /** The report, parsed; absent when the run failed or produced none. */
  readonly report?: unknown;
  /** Where the runner wrote the report (absolute). */
  readonly reportFile?: string;
  /** Why the output is not a usable report (garbage, no JSON): the job fails report-invalid. */
  readonly reportProblems?: readonly ValidationProblem[];
  /** Set when the run itself failed: runner-error (non-zero exit, missing binary) or timeout. */
  readonly failureReason?: JobFailureReason;
  readonly error?: string;
  /**
   * The job is left running, unrecorded, for a take-over after its TTL (an in-process job whose
   * worker was stopped: its run is durable, so the next worker resumes it).
   */
  readonly released?: boolean;
  readonly exitCode?: number | null;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly model?: string;
  readonly durationMs: number;
}

/** One job to execute: the claimed row and its rendered file's text. */
export interface RunnerJob {
  readonly job: JobWithNonce;
  readonly jobFileText: string;
  readonly jobFilePath: string;
  readonly ctx: JobsContext;
  /** Milliseconds left before the job's TTL expires: the runner stops by then. */
  readonly timeoutMs: number;
  /** Streamed model output, for `model.delta` events. */
  readonly onDelta?: (text: string) => void;
  /** Aborted on a forced shutdown: the runner stops the job's work. */
  readonly signal?: AbortSignal;
}

/** Executes jobs of one runner kind (`cli`, `in-process`). */
export interface JobRunner {
  readonly kind: RunnerKind;
  /**
   * Runs the jobs of in-process actions in this process (a durable run each): its loops claim
   * those jobs as runner `in-process` and take over such jobs whose worker died.
   */
  readonly runsInProcess?: boolean;
  /** What `job.spawning` shows as `command` (descriptive, not invokable). */
  describe(job: JobWithNonce): string;
  run(input: RunnerJob): Promise<RunnerResult>;
}
