import { existsSync, readFileSync } from "node:fs";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  absoluteIn,
  countJobs,
  getJob,
  JOB_STATUSES,
  type Job,
  type JobStatus,
  listJobs,
  showJob,
} from "../../jobs/index.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { humanTime } from "../when.js";
import { withJobs } from "./jobs-cli.js";
import { limitFlag } from "./runtime-cli.js";

interface ListFlags extends StoreCliOptions {
  status?: string;
  action?: string;
  node?: string;
  limit?: string;
}

function statusFlag(value: string | undefined): JobStatus | undefined {
  if (value === undefined) return undefined;
  if (!(JOB_STATUSES as readonly string[]).includes(value)) {
    throw new KeelError("INVALID_ARGUMENT", `Unknown job status "${value}".`, {
      hint: `Use one of ${JOB_STATUSES.join(", ")}.`,
    });
  }
  return value as JobStatus;
}

const when = (ms: number | null) => humanTime(ms);

/** `keel job list|show|preview|status`. */
export function registerJobRead(job: Command): void {
  withStoreOptions(
    job
      .command("list")
      .description("Jobs, newest first.")
      .option("--status <status>", `only this status (${JOB_STATUSES.join(", ")})`)
      .option("--action <id>", "only this action")
      .option("--node <path>", "only this node")
      .option("--limit <n>", "at most this many (default 100)"),
  ).action((flags: ListFlags) =>
    withJobs(
      flags,
      async (ctx, options) => {
        const jobs = await listJobs(ctx, {
          status: statusFlag(flags.status),
          action: flags.action,
          node: flags.node,
          limit: limitFlag(flags.limit, 100),
        });
        printResult(options, jobs, () =>
          jobs.length === 0
            ? "no jobs"
            : table(
                ["job", "status", "action", "node", "created"],
                jobs.map((j) => [
                  j.id,
                  j.failureReason ? `${j.status} (${j.failureReason})` : j.status,
                  `${j.actionId}@${j.actionVersion}`,
                  j.nodeId,
                  when(j.createdAt),
                ]),
              ),
        );
      },
      { readOnly: true },
    ).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job
      .command("show <id>")
      .description(
        "One job: state, claim time, TTL remaining, runner, content hash, last execution.",
      ),
  ).action((id: string, flags: StoreCliOptions) =>
    withJobs(
      flags,
      async (ctx, options) => {
        const { job: found, ttlRemainingMs, execution } = await showJob(ctx, id);
        printResult(options, { ...found, ttlRemainingMs, execution }, () =>
          describe(found, ttlRemainingMs, execution?.error_message ?? null),
        );
      },
      { readOnly: true },
    ).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job
      .command("preview <id>")
      .description("Print the job's rendered file (what the runner reads) without running it."),
  ).action((id: string, flags: StoreCliOptions) =>
    withJobs(flags, async (ctx, options) => {
      const found = await getJob(ctx, id);
      const file = found.filePath ? absoluteIn(ctx, found.filePath) : null;
      if (!file || !existsSync(file)) {
        throw new KeelError(
          "JOB_FILE_MISSING",
          `Job ${id}'s file ${found.filePath ?? "(none)"} is missing.`,
          { hint: "`keel doctor` lists jobs whose files are gone." },
        );
      }
      const text = readFileSync(file, "utf8");
      if (options.json)
        printResult(options, { ok: true, id, filePath: found.filePath, text }, () => "");
      else process.stdout.write(text);
    }).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job.command("status [id]").description("Counts per status, or one job's status."),
  ).action((id: string | undefined, flags: StoreCliOptions) =>
    withJobs(flags, async (ctx, options) => {
      if (id) {
        const found = await getJob(ctx, id);
        printResult(
          options,
          { id, status: found.status, failureReason: found.failureReason },
          () => (found.failureReason ? `${found.status} (${found.failureReason})` : found.status),
        );
        return;
      }
      const counts = await countJobs(ctx);
      printResult(options, counts, () =>
        table(
          ["status", "jobs"],
          JOB_STATUSES.map((s) => [s, String(counts[s])]),
        ),
      );
    }).catch((error: unknown) => reportError(flags, error)),
  );
}

function describe(j: Job, ttlRemainingMs: number | null, error: string | null): string {
  return [
    `job        ${j.id}`,
    `status     ${j.status}${j.failureReason ? ` (${j.failureReason})` : ""}`,
    `action     ${j.actionId}@${j.actionVersion}`,
    `node       ${j.nodeId}`,
    `content    ${j.contentHash}`,
    `priority   ${j.priority}   ttl ${j.ttlSeconds}s${ttlRemainingMs === null ? "" : `   remaining ${Math.round(ttlRemainingMs / 1000)}s`}`,
    `runner     ${j.runner ?? "-"}`,
    `created    ${when(j.createdAt)}   claimed ${when(j.claimedAt)}   finished ${when(j.finishedAt)}`,
    `file       ${j.filePath ?? "-"}`,
    ...(error ? [`error      ${error}`] : []),
  ].join("\n");
}
