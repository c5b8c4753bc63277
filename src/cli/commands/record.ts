import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { type JobEvent, newRunId, recordJob } from "../../jobs/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { intFlag, withJobs } from "./jobs-cli.js";

interface RecordFlags extends StoreCliOptions {
  id?: string;
  nonce?: string;
  status?: string;
  report?: string;
  tokensIn?: string;
  tokensOut?: string;
  durationMs?: string;
  model?: string;
  error?: string;
}

/**
 * `keel record`: the callback that closes a running job (dispatch-lifecycle.md, "Record"). Exit
 * 5 unknown id, 4 nonce mismatch (nothing changed), 2 not running; a completed report that fails
 * its schema fails the job as report-invalid and exits 2 (JOB_REPORT_INVALID).
 */
export const recordCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("record")
        .description(
          "Close a running job: --id, --nonce, --status completed (with --report) or failed (with --error).",
        )
        .option("--id <job>", "the job id")
        .option("--nonce <nonce>", "the job's nonce (from the claim)")
        .option("--status <status>", "completed or failed")
        .option("--report <file>", "the report's JSON file (for completed)")
        .option("--tokens-in <n>", "input tokens")
        .option("--tokens-out <n>", "output tokens")
        .option("--duration-ms <n>", "how long the job took")
        .option("--model <name>", "the model that ran it")
        .option("--error <text>", "why it failed (stored verbatim)"),
    ).action((flags: RecordFlags) =>
      withJobs(flags, async (ctx, options) => {
        if (!flags.id) throw new KeelError("INVALID_ARGUMENT", "--id is required.");
        if (flags.status !== "completed" && flags.status !== "failed") {
          throw new KeelError(
            "INVALID_ARGUMENT",
            `--status must be completed or failed, not "${flags.status ?? ""}".`,
          );
        }
        const outcome = await recordJob(ctx, {
          id: flags.id,
          nonce: flags.nonce,
          status: flags.status,
          reportFile: flags.report,
          tokensIn: intFlag("--tokens-in", flags.tokensIn),
          tokensOut: intFlag("--tokens-out", flags.tokensOut),
          durationMs: intFlag("--duration-ms", flags.durationMs),
          model: flags.model,
          error: flags.error,
        });
        const runId = newRunId(ctx.now(), true);
        const at = Date.now();
        const events: JobEvent[] = [
          {
            type: "job.callback.received",
            timestamp: at,
            runId,
            jobId: outcome.jobId,
            data: {
              status: flags.status,
              model: flags.model ?? null,
              reportPath: outcome.reportPath,
            },
          },
          outcome.status === "completed"
            ? {
                type: "job.completed",
                timestamp: at,
                runId,
                jobId: outcome.jobId,
                data: {
                  durationMs: outcome.durationMs,
                  tokensIn: flags.tokensIn === undefined ? null : Number(flags.tokensIn),
                  tokensOut: flags.tokensOut === undefined ? null : Number(flags.tokensOut),
                  model: flags.model ?? null,
                  reportPath: outcome.reportPath,
                },
              }
            : {
                type: "job.failed",
                timestamp: at,
                runId,
                jobId: outcome.jobId,
                data: {
                  reason: outcome.failureReason,
                  message:
                    flags.error ?? outcome.problems.map((p) => `${p.path} ${p.message}`).join("; "),
                  exitCode: null,
                  durationMs: outcome.durationMs,
                },
              },
        ];
        if (outcome.failureReason === "report-invalid") {
          throw new KeelError(
            "JOB_REPORT_INVALID",
            `The report of ${outcome.jobId} is invalid, so the job failed (report-invalid): ${outcome.problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
            {
              details: {
                id: outcome.jobId,
                executionId: outcome.executionId,
                problems: outcome.problems,
                events,
              },
              hint: "The job is terminal; fix the action's output and submit it again.",
            },
          );
        }
        printResult(
          options,
          {
            ok: true,
            id: outcome.jobId,
            status: outcome.status,
            failureReason: outcome.failureReason,
            executionId: outcome.executionId,
            events,
          },
          () =>
            `${outcome.jobId} ${outcome.status}${outcome.failureReason ? ` (${outcome.failureReason})` : ""}`,
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};
