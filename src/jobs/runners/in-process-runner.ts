import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { toKeelError } from "../../core/index.js";
import { validateDocument } from "../../ir/index.js";
import {
  type AutonomyLevel,
  continueGovernedDocument,
  type DocumentRunResult,
  type GovernedRunResult,
  GovernedRuntime,
  loadDocumentTools,
  loadGovernedApp,
  loadRunDocument,
  startGovernedDocument,
} from "../../runtime/index.js";
import type { JobsContext } from "../context.js";
import type { JobWithNonce } from "../types.js";
import type { JobRunner, RunnerJob, RunnerResult } from "./runner.js";

/** How the in-process runner starts its runs. */
export interface InProcessRunnerOptions {
  /** The runs' autonomy level (default A2): with a tool's risk it decides the tool's gate. */
  readonly autonomy?: AutonomyLevel;
  /** What the runs hold (tools' `permissions` are checked against it). */
  readonly capabilities?: readonly string[];
}

/** The thread a job's run lives on: one per job, so a take-over finds the run it continues. */
export function jobThreadId(jobId: string): string {
  return `job:${jobId}`;
}

/** What a run of a job is given, before it is cut to the fields its document declares. */
function jobInput(job: JobWithNonce, jobFileText: string): Record<string, unknown> {
  return {
    job_id: job.id,
    action_id: job.actionId,
    action_version: job.actionVersion,
    node_path: job.nodeId,
    prompt: jobFileText,
  };
}

/**
 * The `in-process` runner: the job's action is implemented by a Keel IR document
 * (`implementation.document`, relative to the manifest), run in this process as a durable
 * governed run (checkpoints, ledger, gates, audit) on the thread `job:<id>`. The run's input is
 * the job (`job_id`, `action_id`, `action_version`, `node_path`, `prompt` — the rendered job
 * file), cut to the fields the document's `state_schema` declares; its final state, without those
 * fields and without the engine's `__` fields, is the report.
 *
 * A job taken over after its worker died (`resumeExpiredJob`) finds its run on the thread and
 * continues it: from its last checkpoint when it was running (calls in doubt first become
 * `unknown`), or straight to the record when it had already succeeded — so no completed step,
 * and no effect the ledger recorded, runs twice. A run that waits for a person (an approval, a
 * call in doubt) or fails fails the job as `runner-error`, naming the run; at the TTL the job
 * fails as `timeout` (the run itself is not interrupted: a step in flight finishes, in this
 * process). Stopped by `signal` (a worker's forced shutdown), it releases the job: left running,
 * unrecorded, for a take-over after its TTL.
 *
 * @example
 * await runWorker(ctx, { runner: actionRunner({ cli: cliRunner({ command }), inProcess: inProcessRunner() }), stop });
 */
export function inProcessRunner(options: InProcessRunnerOptions = {}): JobRunner {
  return {
    kind: "in-process",
    describe(job) {
      return `in-process ${jobThreadId(job.id)}`;
    },
    async run(input) {
      const started = Date.now();
      const failed = (error: string): RunnerResult => ({
        failureReason: "runner-error",
        error,
        durationMs: Date.now() - started,
      });
      let timer: NodeJS.Timeout | undefined;
      const stopped = new Promise<RunnerResult>((done) => {
        timer = setTimeout(
          () =>
            done({
              failureReason: "timeout",
              error: `The run on thread ${jobThreadId(input.job.id)} did not end before the job's TTL.`,
              durationMs: Date.now() - started,
            }),
          Math.max(0, input.timeoutMs),
        );
        // Stopped now (a second SIGTERM): the run is durable, so the job is not failed but left
        // running, unrecorded, for the next worker to take over after its TTL.
        input.signal?.addEventListener(
          "abort",
          () =>
            done({
              released: true,
              error: `The worker was stopped: job ${input.job.id} is left running for the next worker, which resumes its run after the TTL.`,
              durationMs: Date.now() - started,
            }),
          { once: true },
        );
      });
      try {
        return await Promise.race([
          runJob(input, options).then(
            (outcome) => ({ ...outcome, durationMs: Date.now() - started }),
            (error: unknown) => failed(toKeelError(error).message),
          ),
          stopped,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

type Outcome = Omit<RunnerResult, "durationMs">;

async function runJob(input: RunnerJob, options: InProcessRunnerOptions): Promise<Outcome> {
  const { job, ctx } = input;
  const action = ctx.actions.get(job.actionId);
  const implementation = action.manifest.implementation;
  if (!implementation) {
    return {
      failureReason: "runner-error",
      error: `Action ${job.actionId} has no implementation for the in-process runner.`,
    };
  }
  if (implementation.kind === "module") {
    return runModuleJob(input, options, resolve(action.dir ?? ctx.root, implementation.module));
  }
  const path = resolve(action.dir ?? ctx.root, implementation.document);
  const threadId = jobThreadId(job.id);
  const store = ctx.store;
  const probe = new GovernedRuntime({ store, tools: await loadDocumentTools([]) });
  const [latest] = await probe.runs.list({ threadId, limit: 1 });
  const given = declaredInput(path, jobInput(job, input.jobFileText));
  if (latest?.status === "succeeded") {
    // The run ended but its worker died before recording: its final state is the report.
    const loaded = await loadRunDocument(store, latest.id);
    const snapshot = (await loaded.compiled.graph.getState({
      configurable: { thread_id: threadId },
    })) as { values?: Record<string, unknown> };
    return reportOf(ctx, job, snapshot.values ?? {}, given);
  }
  if (latest?.status === "failed" || latest?.status === "canceled") {
    return {
      failureReason: "runner-error",
      error: `Run ${latest.id} of this job ${latest.status}${latest.error ? `: ${latest.error.message}` : ""}.`,
    };
  }
  const result: DocumentRunResult = latest
    ? await continueGovernedDocument(store, latest.id)
    : await startGovernedDocument(
        store,
        { path },
        {
          input: given,
          threadId,
          ...(options.autonomy !== undefined ? { autonomy: options.autonomy } : {}),
          ...(options.capabilities !== undefined ? { capabilities: options.capabilities } : {}),
        },
      );
  if (result.run.status !== "succeeded") return notEnded(result);
  return reportOf(ctx, job, result.out, given);
}

/** A run that did not end: the job fails as runner-error, naming the run and what it waits for. */
function notEnded(result: Pick<GovernedRunResult, "run" | "waitingFor">): Outcome {
  const waiting = result.waitingFor.map((w) => w.how_to_continue).join("; ");
  return {
    failureReason: "runner-error",
    error: `Run ${result.run.id} of this job is ${result.run.status}${waiting ? `, waiting: ${waiting}` : ""}; a job cannot wait for a person (docs/jobs.md).`,
  };
}

/**
 * A job whose action is a `keelApp` module (a graph and its tools, see `GovernedApp`): started
 * with the whole job as its input and the module recorded (`app`), so operators' tools can
 * continue it too; a take-over recovers it from its checkpoint, or reads the final state of a run
 * that had ended.
 */
async function runModuleJob(
  input: RunnerJob,
  options: InProcessRunnerOptions,
  modulePath: string,
): Promise<Outcome> {
  const { job, ctx } = input;
  const app = pathToFileURL(modulePath).href;
  const { runtime, graph } = await loadGovernedApp(app, ctx.store);
  const threadId = jobThreadId(job.id);
  const given = jobInput(job, input.jobFileText);
  const [latest] = await runtime.runs.list({ threadId, limit: 1 });
  if (latest?.status === "succeeded") {
    const tuple = await runtime.checkpointer.getTuple({ configurable: { thread_id: threadId } });
    return reportOf(
      ctx,
      job,
      (tuple?.checkpoint.channel_values ?? {}) as Record<string, unknown>,
      given,
    );
  }
  if (latest?.status === "failed" || latest?.status === "canceled") {
    return {
      failureReason: "runner-error",
      error: `Run ${latest.id} of this job ${latest.status}${latest.error ? `: ${latest.error.message}` : ""}.`,
    };
  }
  if (latest?.status === "paused") return notEnded({ run: latest, waitingFor: [] });
  const result = latest
    ? await runtime.recover(latest.id, graph)
    : await runtime.start({
        graph,
        input: given,
        threadId,
        app,
        graphId: job.actionId,
        autonomy: options.autonomy ?? "A2",
        ...(options.capabilities !== undefined ? { capabilities: options.capabilities } : {}),
      });
  if (result.run.status !== "succeeded") return notEnded(result);
  return reportOf(ctx, job, (result.result ?? {}) as Record<string, unknown>, given);
}

/** The job's input cut to the fields the document declares (all of them with a state class). */
function declaredInput(path: string, full: Record<string, unknown>): Record<string, unknown> {
  let parsed: ReturnType<typeof validateDocument>;
  try {
    parsed = validateDocument(readFileSync(path, "utf8"));
  } catch {
    return full; // unreadable: the run's start reports why
  }
  if (!parsed.ok || parsed.document.state_class) return full;
  const declared = new Set(Object.keys(parsed.document.state_schema ?? {}));
  return Object.fromEntries(Object.entries(full).filter(([key]) => declared.has(key)));
}

/** The final state as the report (written to `<.keel>/reports/<id>.json`). */
function reportOf(
  ctx: JobsContext,
  job: JobWithNonce,
  state: Record<string, unknown>,
  given: Record<string, unknown>,
): Outcome {
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
