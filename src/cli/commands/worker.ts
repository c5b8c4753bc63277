import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { durationSeconds } from "../../ir/index.js";
import {
  actionRunner,
  cliRunner,
  inProcessRunner,
  ndjsonSink,
  runWorker,
} from "../../jobs/index.js";
import { DecisionMemory, runMaintenanceSchedule } from "../../memory/index.js";
import type { CliModule } from "../command.js";
import { printResult, progress, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { intFlag, progressSink, stdoutNdjson, withJobs } from "./jobs-cli.js";

interface WorkerFlags extends StoreCliOptions {
  concurrency?: string;
  filter?: string[];
  command?: string;
  pollMs?: string;
  maintainEvery?: string;
}

/** `--maintain-every`: seconds, or a duration (PT6H, 06:00:00, 1 day); `off` turns it off. */
function maintenanceInterval(text: string | undefined): number | null {
  if (text === "off") return null;
  const seconds = durationSeconds(text ?? "PT6H") ?? Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `--maintain-every ${JSON.stringify(text)} is not a duration.`,
      { hint: "Give seconds (3600), a duration (PT6H, 06:00:00, 1 day) or off." },
    );
  }
  return seconds * 1000;
}

/**
 * `keel worker [--concurrency N]`: claims and runs jobs until SIGTERM or SIGINT. The first signal
 * stops claiming and lets the jobs in flight finish and be recorded; a second one kills their
 * runners (those jobs fail as runner-error) so the worker exits at once.
 */
export const workerCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("worker")
        .description(
          "Run jobs until stopped (SIGTERM: finish the jobs in flight, then exit); run many against one Postgres database.",
        )
        .option("--concurrency <n>", "parallel claim/run loops (default 1)")
        .option("--filter <action...>", "only jobs of these actions")
        .option("--command <line>", "the cli runner command (default: jobs.runner.command)")
        .option("--poll-ms <n>", "idle wait between claims (default 1000)")
        .option(
          "--maintain-every <duration>",
          "decision-memory maintenance pass interval: seconds, PT6H, 06:00:00, 1 day, or off (default PT6H; one pass at start)",
        ),
    ).action((flags: WorkerFlags) =>
      withJobs(flags, async (ctx, options) => {
        const maintainEveryMs = maintenanceInterval(flags.maintainEvery);
        const stop = new AbortController();
        const abort = new AbortController();
        const onSignal = () => {
          if (stop.signal.aborted) {
            abort.abort();
            return;
          }
          progress(
            options,
            "stopping: finishing the jobs in flight (signal again to stop them now)",
          );
          stop.abort();
        };
        process.on("SIGTERM", onSignal);
        process.on("SIGINT", onSignal);
        // The memory's lifecycle runs beside the job loops and stops with them.
        const maintenance =
          maintainEveryMs === null
            ? Promise.resolve(0)
            : runMaintenanceSchedule(new DecisionMemory(ctx.store), {
                everyMs: maintainEveryMs,
                signal: stop.signal,
                onPass: (report, ms) =>
                  progress(
                    options,
                    `memory maintenance: ${report.decayed} decayed, ${report.forgotten.length} forgotten, ${report.vitalityChanged} vitality changes, ${report.archivedEvents} events archived, ${report.prunedEvents} pruned (${ms} ms)`,
                  ),
                onError: (error) =>
                  progress(
                    options,
                    `memory maintenance failed: ${error instanceof Error ? error.message : String(error)}`,
                  ),
              });
        try {
          const summary = await runWorker(ctx, {
            runner: actionRunner({
              cli: cliRunner({ command: flags.command ?? ctx.config.runnerCommand }),
              inProcess: inProcessRunner(),
            }),
            concurrency: intFlag("--concurrency", flags.concurrency, 1),
            filter: flags.filter ? { actions: flags.filter } : undefined,
            pollMs: intFlag("--poll-ms", flags.pollMs, 1),
            emit: options.json ? ndjsonSink(stdoutNdjson()) : progressSink(options),
            stop: stop.signal,
            abort: abort.signal,
          });

          if (!options.json)
            printResult(
              options,
              summary,
              () =>
                `worker stopped: ${summary.jobsCompleted} completed, ${summary.jobsFailed} failed`,
            );
        } finally {
          stop.abort();
          await maintenance;
          process.off("SIGTERM", onSignal);
          process.off("SIGINT", onSignal);
        }
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};
