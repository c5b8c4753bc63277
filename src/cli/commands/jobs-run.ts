import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  actionRunner,
  claimNextJob,
  cliRunner,
  inProcessRunner,
  ndjsonSink,
  runJobs,
} from "../../jobs/index.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { intFlag, progressSink, stdoutNdjson, withJobs } from "./jobs-cli.js";

interface RunFlags extends StoreCliOptions {
  all?: boolean;
  max?: string;
  filter?: string[];
  command?: string;
  concurrency?: string;
  streamOutput?: boolean;
}

interface ClaimFlags extends StoreCliOptions {
  filter?: string[];
}

/** `keel job run` and `keel job claim`. */
export function registerJobRun(job: Command): void {
  withStoreOptions(
    job
      .command("run")
      .description(
        "Reap expired jobs, then claim → run (the action's runner: cli, or in-process for a durable run, resuming jobs whose worker died) → record: one job, --max N, or --all.",
      )
      .option("--all", "drain the queue")
      .option("--max <n>", "run at most n jobs")
      .option("--filter <action...>", "only jobs of these actions")
      .option("--command <line>", "the runner command (default: jobs.runner.command)")
      .option("--concurrency <n>", "parallel claim/run loops (default 1)")
      .option("--stream-output", "emit model.delta events with the runner's output"),
  ).action((flags: RunFlags) =>
    withJobs(flags, async (ctx, options) => {
      if (flags.all && flags.max !== undefined)
        throw new KeelError("INVALID_ARGUMENT", "Give --all or --max, not both.");
      const max = intFlag("--max", flags.max, 1);
      await runJobs(ctx, {
        mode: flags.all ? "all" : max !== undefined ? "max" : "single",
        max,
        filter: flags.filter ? { actions: flags.filter } : undefined,
        runner: actionRunner({
          cli: cliRunner({ command: flags.command ?? ctx.config.runnerCommand }),
          inProcess: inProcessRunner(),
        }),
        concurrency: intFlag("--concurrency", flags.concurrency, 1),
        streamOutput: flags.streamOutput === true,
        emit: options.json ? ndjsonSink(stdoutNdjson()) : progressSink(options),
      });
    }).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job
      .command("claim")
      .description(
        "Atomically claim the next queued job for a skill runner: its id on stdout (with --json: the id, nonce and job file); exit 1 when the queue is empty.",
      )
      .option("--filter <action...>", "only jobs of these actions"),
  ).action((flags: ClaimFlags) =>
    withJobs(flags, async (ctx, options) => {
      const claimed = await claimNextJob(ctx, {
        runner: "skill",
        filter: flags.filter ? { actions: flags.filter } : undefined,
      });
      if (!claimed) {
        throw new KeelError("JOB_QUEUE_EMPTY", "No queued job to claim.", {
          hint: flags.filter
            ? "No queued job of those actions; drop --filter or submit one."
            : "Submit one with `keel job submit`.",
        });
      }
      printResult(options, { ok: true, job: claimed }, () => claimed.id);
    }).catch((error: unknown) => reportError(flags, error)),
  );
}
