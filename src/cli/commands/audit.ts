import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  AuditOutcome,
  PipelineStage,
  readAuditTrace,
  searchAudit,
  verifyAuditLog,
} from "../../runtime/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { limitFlag, timelineLine, withRuntimeStore } from "./runtime-cli.js";

interface SearchFlags extends StoreCliOptions {
  type?: string;
  stage?: string;
  outcome?: string;
  text?: string;
  since?: string;
  until?: string;
  limit?: string;
}

/**
 * `keel audit <trace_id>` (a readable timeline), `keel audit search|list` and `keel audit verify`
 * (recomputes the hash chain; exit 1 when tampering is found).
 */
export const auditCommands: CliModule = {
  register(program: Command): void {
    const audit = withStoreOptions(
      program
        .command("audit")
        .description("The audit log: a trace's timeline, search, and tamper verification.")
        .argument("[trace_id]", "print this trace's timeline"),
    ).action((traceId: string | undefined, flags: StoreCliOptions) =>
      withRuntimeStore(
        flags,
        async (store, _audit, options) => {
          if (traceId === undefined) {
            throw new KeelError("INVALID_ARGUMENT", "Name a trace id, or a subcommand.", {
              hint: "keel audit <trace_id> | keel audit search … | keel audit verify",
            });
          }
          const started = performance.now();
          const events = await readAuditTrace(store, traceId);
          if (events.length === 0) {
            throw new KeelError("NOT_FOUND", `No audit events for trace ${traceId}.`, {
              details: { traceId },
              hint: "Find traces with `keel audit search`.",
            });
          }
          const ms = performance.now() - started;
          printResult(options, { ok: true, traceId, events }, () =>
            [
              `trace ${traceId}: ${events.length} events (read in ${ms.toFixed(1)} ms)`,
              ...events.map(timelineLine),
            ].join("\n"),
          );
        },
        { readOnly: true },
      ).catch((error: unknown) => reportError(flags, error)),
    );

    for (const name of ["search", "list"]) {
      withStoreOptions(
        audit
          .command(name)
          .description(
            name === "search" ? "Search events, newest first." : "Recent events (same as search).",
          )
          .option("--type <prefix>", "type or type prefix, e.g. gate. or tool_call.unknown")
          .option("--stage <stage>", `pipeline stage (${PipelineStage.options.join(", ")})`)
          .option("--outcome <outcome>", `outcome (${AuditOutcome.options.join(", ")})`)
          .option("--text <words>", "words in the summary")
          .option("--since <iso>", "at or after this instant (ISO 8601)")
          .option("--until <iso>", "before this instant (ISO 8601)")
          .option("--limit <n>", "at most this many (default 50)"),
      ).action((_flags: SearchFlags, command: Command) => {
        // `--db`, `--json`… are also options of `keel audit`, which parses them first.
        const flags = command.optsWithGlobals<SearchFlags>();
        return withRuntimeStore(
          flags,
          async (store, _audit, options) => {
            const events = await searchAudit(store, {
              type: flags.type,
              stage: enumFlag(PipelineStage.options, flags.stage, "--stage"),
              outcome: enumFlag(AuditOutcome.options, flags.outcome, "--outcome"),
              text: flags.text,
              since: instant(flags.since, "--since"),
              until: instant(flags.until, "--until"),
              limit: limitFlag(flags.limit, 50),
            });
            printResult(options, { ok: true, events }, () =>
              events.length === 0
                ? "no events"
                : events.map((e) => `${timelineLine(e)}  trace=${e.trace_id}`).join("\n"),
            );
          },
          { readOnly: true },
        ).catch((error: unknown) => reportError(flags, error));
      });
    }

    withStoreOptions(
      audit
        .command("verify")
        .description(
          "Recompute the hash chain; exit 1 and list findings when events were altered.",
        ),
    ).action((_flags: StoreCliOptions, command: Command) => {
      const flags = command.optsWithGlobals<StoreCliOptions>();
      return withRuntimeStore(flags, async (store, audit, options) => {
        // Findings are audited (audit.tamper_detected) on a trace of their own.
        const result = await verifyAuditLog(store, { record: audit });
        printResult(options, { ...result }, () =>
          result.ok
            ? `audit log intact: ${result.checked} events checked, hash chain and head agree`
            : [
                `audit log TAMPERED: ${result.findings.length} findings in ${result.checked} events`,
                ...result.findings.map(
                  (f) => `  ${f.kind.padEnd(15)} seq ${f.seq ?? "-"}  ${f.message}`,
                ),
                result.recorded && "traceId" in result.recorded
                  ? `recorded as audit.tamper_detected: keel audit ${result.recorded.traceId}`
                  : `NOT recorded in the log: ${result.recorded?.error.message ?? "?"}`,
              ].join("\n"),
        );
        if (!result.ok) process.exitCode = 1;
      }).catch((error: unknown) => reportError(flags, error));
    });
  },
};

function enumFlag<T extends string>(
  options: readonly T[],
  value: string | undefined,
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((options as readonly string[]).includes(value)) return value as T;
  throw new KeelError("INVALID_ARGUMENT", `Unknown ${flag} "${value}".`, {
    hint: `Use one of ${options.join(", ")}.`,
  });
}

function instant(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `${flag} must be an ISO 8601 instant, not "${value}".`,
      {
        hint: "For example 2026-05-01T10:00:00Z.",
      },
    );
  }
  return ms;
}
