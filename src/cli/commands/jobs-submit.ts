import { userInfo } from "node:os";
import type { Command } from "commander";
import { isKeelError, KeelError, toKeelError } from "../../core/index.js";
import {
  cliRunner,
  type JobsContext,
  type JobWithNonce,
  ndjsonSink,
  runJobs,
  submitJob,
} from "../../jobs/index.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { intFlag, progressSink, stdoutNdjson, withJobs } from "./jobs-cli.js";

interface SubmitFlags extends StoreCliOptions {
  node?: string;
  all?: boolean;
  force?: boolean;
  ttl?: string;
  priority?: string;
  run?: boolean;
  command?: string;
}

/** `keel job submit <action> -n <path> | --all [--force] [--ttl N] [--run]`. */
export function registerJobSubmit(job: Command): void {
  withStoreOptions(
    job
      .command("submit <action>")
      .description(
        "Queue a job applying <action> to a node (-n) or to every node its preconditions match (--all).",
      )
      .option("-n, --node <path>", "the node's path (relative to the project root)")
      .option("--all", "one job per node matching the action's preconditions")
      .option("--force", "queue even when a live job has the same action, node and content")
      .option("--ttl <seconds>", "the job's TTL (beats the computed and configured ones)")
      .option("--priority <n>", "higher is claimed first (default 0)")
      .option("--run", "run the queued job(s) now with the cli runner")
      .option("--command <line>", "with --run: the runner command (default: jobs.runner.command)"),
  ).action((actionId: string, flags: SubmitFlags) =>
    withJobs(flags, async (ctx, options) => {
      if (!flags.all === !flags.node) {
        throw new KeelError("INVALID_ARGUMENT", "Give exactly one of -n <path> and --all.");
      }
      const request = {
        actionId,
        force: flags.force === true,
        ttlSeconds: intFlag("--ttl", flags.ttl, 1),
        priority: intFlag("--priority", flags.priority, -1_000_000) ?? 0,
        submittedBy: userInfo().username,
      };
      if (flags.node) {
        const submitted = await submitJob(ctx, { ...request, nodePath: flags.node }).catch(
          (error: unknown) => {
            // Exit 3 prints the existing id on stdout, so scripts can pick it up.
            if (isKeelError(error) && error.code === "JOB_DUPLICATE" && !options.json) {
              process.stdout.write(
                `${String((error.details as { existingId?: string }).existingId)}\n`,
              );
            }
            throw error;
          },
        );
        printResult(options, publicJob(submitted), () => submitted.id);
        if (flags.run) await runSubmitted(ctx, options, flags.command, [submitted.id]);
        return;
      }
      const action = ctx.actions.get(actionId);
      const kinds = action.manifest.preconditions.kinds;
      let query = ctx.store.kysely.selectFrom("scan_nodes").select("path").orderBy("path");
      if (kinds) query = query.where("kind", "in", kinds);
      const nodes = await query.execute();
      const results: {
        node: string;
        id?: string;
        error?: { code: string; message: string; existingId?: string };
      }[] = [];
      for (const { path } of nodes) {
        try {
          results.push({
            node: path,
            id: (await submitJob(ctx, { ...request, nodePath: path })).id,
          });
        } catch (error) {
          const keel = toKeelError(error);
          results.push({
            node: path,
            error: {
              code: keel.code,
              message: keel.message,
              existingId: (keel.details as { existingId?: string } | undefined)?.existingId,
            },
          });
        }
      }
      const queued = results.filter((r) => r.id).length;
      printResult(
        options,
        {
          ok: true,
          action: actionId,
          nodes: nodes.length,
          queued,
          refused: results.length - queued,
          results,
        },
        () =>
          [
            ...results.map((r) =>
              r.id
                ? `${r.id}  ${r.node}`
                : `-  ${r.node}  refused: ${r.error?.code}${r.error?.existingId ? ` (${r.error.existingId})` : ""}`,
            ),
            `${queued} of ${nodes.length} node(s) queued`,
          ].join("\n"),
      );
      if (flags.run && queued > 0)
        await runSubmitted(
          ctx,
          options,
          flags.command,
          results.flatMap((r) => (r.id ? [r.id] : [])),
        );
    }).catch((error: unknown) => reportError(flags, error)),
  );
}

/** The job as submit's `--json` prints it: job.schema.json's fields, the nonce included (the submitter records). */
function publicJob(job: JobWithNonce): Record<string, unknown> {
  return { ...job };
}

async function runSubmitted(
  ctx: JobsContext,
  options: StoreCliOptions,
  command: string | undefined,
  ids: string[],
): Promise<void> {
  await runJobs(ctx, {
    mode: "all",
    filter: { ids },
    runner: cliRunner({ command: command ?? ctx.config.runnerCommand }),
    emit: options.json ? ndjsonSink(stdoutNdjson()) : progressSink(options),
  });
}
