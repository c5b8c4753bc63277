import { resolve } from "node:path";
import { toKeelError } from "../../core/index.js";
import { runDocumentJob } from "./in-process-document.js";
import { runModuleJob } from "./in-process-module.js";
import {
  type InProcessOutcome,
  type InProcessRunnerOptions,
  jobThreadId,
} from "./in-process-shared.js";
import type { JobRunner, RunnerJob, RunnerResult } from "./runner.js";

export { type InProcessRunnerOptions, jobThreadId };

/**
 * The `in-process` runner: the job's action is implemented by a Keel IR document
 * (`implementation.kind: "ir"`) or a module exporting `keelApp` (`"module"`: a graph and its
 * tools), path relative to the manifest, run in this process as a durable governed run
 * (checkpoints, ledger, gates, audit) on the thread `job:<id>`. The run's input is the job
 * (`job_id`, `action_id`, `action_version`, `node_path`, `prompt` — the rendered job file; for a
 * document, cut to the fields its `state_schema` declares); its final state, without those
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

/** Runs the job on its action's implementation: an IR document or a keelApp module. */
async function runJob(
  input: RunnerJob,
  options: InProcessRunnerOptions,
): Promise<InProcessOutcome> {
  const { job, ctx } = input;
  const action = ctx.actions.get(job.actionId);
  const implementation = action.manifest.implementation;
  if (!implementation) {
    return {
      failureReason: "runner-error",
      error: `Action ${job.actionId} has no implementation for the in-process runner.`,
    };
  }
  const dir = action.dir ?? ctx.root;
  return implementation.kind === "module"
    ? runModuleJob(input, options, resolve(dir, implementation.module))
    : runDocumentJob(input, options, resolve(dir, implementation.document));
}
