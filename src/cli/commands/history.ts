import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { historyStats, listExecutions, parseSince } from "../../jobs/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { humanTime } from "../when.js";
import { withJobs } from "./jobs-cli.js";
import { limitFlag } from "./runtime-cli.js";

interface HistoryFlags extends StoreCliOptions {
  node?: string;
  action?: string;
  status?: string;
  since?: string;
  limit?: string;
}

const STATUSES = ["completed", "failed", "cancelled"] as const;

/** `keel history [-n --action --status --since]` and `keel history stats`. */
export const historyCommands: CliModule = {
  register(program: Command): void {
    const history = withStoreOptions(
      program
        .command("history")
        .description(
          "Execution records of jobs, newest first (--json: execution-record.schema.json objects).",
        )
        .option("-n, --node <path>", "only executions on this node")
        .option("--action <id>", "only this action")
        .option("--status <status>", `only this status (${STATUSES.join(", ")})`)
        .option("--since <when>", "an ISO date, Unix ms, or a span back from now (7d, 12h, 30m)")
        .option("--limit <n>", "at most this many (default 100)"),
    ).action((flags: HistoryFlags) =>
      withJobs(flags, async (ctx, options) => {
        if (flags.status && !(STATUSES as readonly string[]).includes(flags.status)) {
          throw new KeelError("INVALID_ARGUMENT", `Unknown execution status "${flags.status}".`, {
            hint: `Use one of ${STATUSES.join(", ")}.`,
          });
        }
        const records = await listExecutions(ctx, {
          node: flags.node,
          action: flags.action,
          status: flags.status as (typeof STATUSES)[number] | undefined,
          since: flags.since === undefined ? undefined : parseSince(flags.since, ctx.now()),
          limit: limitFlag(flags.limit, 100),
        });
        printResult(options, records, () =>
          records.length === 0
            ? "no executions"
            : table(
                ["execution", "status", "action", "node", "started", "ms", "tokens in/out"],
                records.map((r) => [
                  r.id,
                  r.failureReason ? `${r.status} (${r.failureReason})` : r.status,
                  r.extensionId,
                  r.nodeIds.join(","),
                  humanTime(r.startedAt),
                  String(r.durationMs ?? "-"),
                  `${r.tokensIn ?? "-"}/${r.tokensOut ?? "-"}`,
                ]),
              ),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
    withStoreOptions(
      history
        .command("stats")
        .description("Tokens and error rate per action, executions per month, top nodes.")
        .option("--since <when>", "only executions since (ISO date, Unix ms, 7d, 12h, 30m)"),
    ).action((own: HistoryFlags) => {
      // `keel history stats --json`: commander hands options the parent also defines to the parent.
      const flags = { ...(history.opts() as HistoryFlags), ...own };
      return withJobs(flags, async (ctx, options) => {
        const stats = await historyStats(
          ctx,
          flags.since === undefined ? undefined : parseSince(flags.since, ctx.now()),
        );
        printResult(options, { ok: true, ...stats }, () =>
          [
            table(
              ["action", "executions", "failed", "error rate", "tokens in", "tokens out"],
              stats.perAction.map((a) => [
                a.action,
                String(a.executions),
                String(a.failed),
                `${(a.errorRate * 100).toFixed(1)}%`,
                String(a.tokensIn),
                String(a.tokensOut),
              ]),
            ),
            "",
            table(
              ["month", "executions"],
              stats.perPeriod.map((p) => [p.period, String(p.executions)]),
            ),
            "",
            table(
              ["node", "executions"],
              stats.topNodes.map((n) => [n.node, String(n.executions)]),
            ),
          ].join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error));
    });
  },
};
