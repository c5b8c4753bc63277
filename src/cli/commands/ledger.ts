import { userInfo } from "node:os";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  type AuditWriter,
  assertSettleable,
  ToolCallStatus,
  ToolLedger,
  ToolRegistry,
} from "../../runtime/index.js";
import type { Store } from "../../store/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { humanTime } from "../when.js";
import { parseJsonOption } from "./document-runs.js";
import {
  checkOperatorOutput,
  type LedgerDetail,
  type LedgerEntry,
  listLapsedCalls,
  listToolCalls,
  toolCallDetail,
} from "./ledger-read.js";
import {
  continuationJson,
  continueAfterDecision,
  describeAfterDecision,
  limitFlag,
  withRuntimeStore,
} from "./runtime-cli.js";

interface ListFlags extends StoreCliOptions {
  status?: string;
  trace?: string;
  run?: string;
  limit?: string;
}
interface ResolveFlags extends StoreCliOptions {
  outcome?: string;
  by?: string;
  reason?: string;
  output?: string;
  resume?: boolean;
}

const STATUSES = [...ToolCallStatus.options, "all"] as const;

/**
 * `keel ledger list|show|resolve`: the tool-call ledger for operators. A call whose effect is in
 * doubt (`unknown`: the tool is not retry-safe and nothing says whether it acted) holds its run
 * until a person checks the world and settles it; `resolve` records that (`ToolLedger
 * .resolveUnknown`), then the run waiting for it continues here with the application module it
 * recorded (`start({ app })`), as `keel approvals approve` does (`--no-resume`: only settle).
 */
export const ledgerCommands: CliModule = {
  register(program: Command): void {
    const ledger = program
      .command("ledger")
      .description("The tool-call ledger: list calls, show one, settle a call in doubt.");

    withStoreOptions(
      ledger
        .command("list")
        .description(
          "Tool calls, newest first; by default the unknown ones, which an operator must settle.",
        )
        .option(
          "--status <status>",
          `only this status (${STATUSES.join(", ")}; default: unknown, and attempted ones whose lease lapsed)`,
        )
        .option("--trace <trace_id>", "only the calls of this trace")
        .option("--run <run_id>", "only the calls of this run")
        .option("--limit <n>", "at most this many (default 100)"),
    ).action((flags: ListFlags) =>
      withRuntimeStore(
        flags,
        async (store, _audit, options) => {
          const status = statusFlag(flags.status);
          const filter = {
            traceId: flags.trace,
            runId: flags.run,
            limit: limitFlag(flags.limit, 100),
          };
          const calls = await listToolCalls(store, {
            status: status === "all" ? undefined : status,
            ...filter,
          });
          // By default (the calls an operator must act on), and with --status attempted, the calls
          // whose process died before their outcome: `keel runs recover` makes them unknown.
          const lapsed =
            flags.status === undefined || status === "attempted" || status === "all"
              ? await listLapsedCalls(store, filter)
              : [];
          const lapsedIds = new Set(lapsed.map((entry) => entry.toolCall.tool_call_id));
          const listed =
            flags.status === undefined
              ? [...lapsed, ...calls]
              : calls.map((entry) => ({ ...entry }));
          const rows = listed.map((entry) => ({
            ...entry,
            leaseLapsed: lapsedIds.has(entry.toolCall.tool_call_id),
          }));
          printResult(options, { ok: true, calls: rows }, () =>
            rows.length === 0
              ? `no ${flags.status === undefined ? "unknown or lapsed" : status === "all" ? "" : `${status} `}tool calls`
              : [
                  table(
                    ["call", "status", "tool", "action", "run", "created", "key"],
                    rows.map(({ toolCall: c, leaseLapsed }) => [
                      c.tool_call_id,
                      leaseLapsed ? `${c.status} (lease lapsed)` : c.status,
                      c.tool_name,
                      c.action,
                      c.task_id ?? "-",
                      humanTime(c.created_at),
                      c.idempotency_key,
                    ]),
                  ),
                  lapsed.length > 0
                    ? `calls with a lapsed lease: their process stopped; \`keel runs recover ${lapsed[0]?.toolCall.task_id ?? "--all"}\` marks them unknown, then settle them with \`keel ledger resolve\``
                    : "",
                ]
                  .filter(Boolean)
                  .join("\n"),
          );
        },
        { readOnly: true },
      ).catch((error: unknown) => reportError(flags, error)),
    );

    withStoreOptions(
      ledger
        .command("show <tool_call_id>")
        .description("One tool call: the call, its result, the request and the response recorded."),
    ).action((id: string, flags: StoreCliOptions) =>
      withRuntimeStore(flags, async (store, audit, options) => {
        const detail = await toolCallDetail(store, ledgerOn(store, audit), id);
        printResult(options, { ok: true, ...detail }, () => describe(detail));
      }).catch((error: unknown) => reportError(flags, error)),
    );

    withStoreOptions(
      ledger
        .command("resolve <tool_call_id>")
        .description(
          "Settle a call whose outcome is unknown, after checking the world; then the run waiting for it continues.",
        )
        .option(
          "--outcome <outcome>",
          "succeeded (the effect happened) or failed (it did not; a retry of the step may run it again)",
        )
        .option("--by <who>", "who settles it (default: the current user)")
        .option("--reason <text>", "what you checked (required; audited)")
        .option(
          "--output <json>",
          "with --outcome succeeded: the JSON the effect produced, as the tool would have returned it (checked against its output schema when the run recorded its application module)",
        )
        .option("--no-resume", "only settle: do not continue the run that waits for it"),
    ).action((id: string, flags: ResolveFlags) =>
      withRuntimeStore(flags, async (store, audit, options) => {
        const outcome = outcomeFlag(flags.outcome);
        const reason = flags.reason?.trim() ?? "";
        if (reason === "") {
          throw new KeelError("INVALID_ARGUMENT", "--reason is required to settle a tool call.", {
            hint: 'Say what you checked, e.g. --reason "the provider shows the refund".',
          });
        }
        if (outcome === "failed" && flags.output !== undefined) {
          throw new KeelError(
            "INVALID_ARGUMENT",
            "--output goes with --outcome succeeded: a failed call produced no output.",
            { hint: "Leave out --output, or settle it as succeeded." },
          );
        }
        const output =
          flags.output === undefined ? null : parseJsonOption(flags.output, "--output");
        const toolLedger = ledgerOn(store, audit);
        const { toolCall } = await toolLedger.get(id);
        // Refused before the output is checked against the run's tools (the ledger refuses too).
        assertSettleable(toolCall, outcome);
        const check =
          outcome === "succeeded" ? await checkOperatorOutput(store, toolCall, output) : null;
        const by = flags.by ?? userInfo().username;
        const settled = await toolLedger.resolveUnknown(id, { outcome, output, by, reason });
        const runId = settled.toolCall.task_id;
        const run = await continueAfterDecision(store, runId, flags.resume);
        printResult(
          options,
          {
            ok: true,
            ...settled,
            outputChecked: check?.checked ?? null,
            run: run && continuationJson(run),
          },
          () =>
            [
              `${settled.toolCall.status} ${id} (${settled.toolCall.tool_name}) settled by ${by}: ${reason}`,
              check && !check.checked
                ? `output not checked against the tool's schema (${check.reason === "no-tool" ? "the run's application does not register the tool" : "no application module recorded"})`
                : "",
              describeAfterDecision(run, runId),
            ]
              .filter(Boolean)
              .join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};

/**
 * A ledger on the CLI's store for reading and settling calls: it runs no tool, so an empty
 * registry does (an output is checked with the run's own tools, `checkOperatorOutput`).
 */
function ledgerOn(store: Store, audit: AuditWriter): ToolLedger {
  return new ToolLedger({ store, audit, tools: new ToolRegistry() });
}

function statusFlag(value: string | undefined): (typeof STATUSES)[number] {
  if (value === undefined) return "unknown";
  const status = STATUSES.find((s) => s === value);
  if (!status) {
    throw new KeelError("INVALID_ARGUMENT", `Unknown tool call status "${value}".`, {
      hint: `Use one of ${STATUSES.join(", ")}.`,
    });
  }
  return status;
}

function outcomeFlag(value: string | undefined): "succeeded" | "failed" {
  if (value === "succeeded" || value === "failed") return value;
  throw new KeelError(
    "INVALID_ARGUMENT",
    value === undefined
      ? "--outcome is required to settle a tool call."
      : `--outcome must be succeeded or failed, not "${value}".`,
    {
      hint: "--outcome succeeded if the effect happened (with --output), --outcome failed if it did not.",
    },
  );
}

function describe(d: LedgerDetail): string {
  const c = d.toolCall;
  return [
    `call       ${c.tool_call_id}`,
    `status     ${c.status}${c.latency_ms === null ? "" : ` (${c.latency_ms} ms)`}`,
    `tool       ${c.tool_name}   action ${c.action}`,
    `trace      ${c.trace_id}`,
    `run        ${c.task_id ?? "-"}   step ${c.step_id ?? "-"}`,
    `key        ${c.idempotency_key}`,
    `risk       ${c.risk_level} at autonomy ${c.autonomy_level}`,
    `created    ${humanTime(c.created_at)}`,
    `request    ${JSON.stringify(d.request)}`,
    resultLine(d),
    c.status === "unknown"
      ? `to settle  keel ledger resolve ${c.tool_call_id} --outcome succeeded|failed --reason "…"`
      : "",
  ]
    .filter(Boolean)
    .join("\n");
}

function resultLine({ result, response }: LedgerEntry & { response: unknown }): string {
  if (result === null) return "result     (none yet)";
  return result.status === "succeeded"
    ? `result     succeeded at ${result.resolved_at}: ${JSON.stringify(response)}`
    : `result     failed at ${result.resolved_at} (${result.error?.code ?? "?"}): ${result.error?.message ?? ""}`;
}
