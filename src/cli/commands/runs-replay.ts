import type { Command } from "commander";
import { isKeelError, KeelError } from "../../core/index.js";
import {
  type ReplayChanges,
  type ReplayReport,
  RiskLevel,
  replayGovernedRun,
} from "../../runtime/index.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { parseJsonOption } from "./document-runs.js";
import { autonomyFlag, readJson, withRuntimeStore } from "./runtime-cli.js";

interface ReplayFlags extends StoreCliOptions {
  counterfactual?: boolean;
  input?: string;
  routing?: string;
  autonomy?: string;
  risk?: string;
}

/**
 * `keel runs replay <run> [--counterfactual] [--input json] [--routing file] [--autonomy A]
 * [--risk r]`: replays a governed run with the application module it recorded, every tool call
 * answered as its replay policy says (from the ledger by default), and prints the
 * transition-by-transition diff. Exit 0 when the replay matched, 1 when it diverged (the first
 * divergence is reported), 2 when it could not run, 5 for an unknown run.
 */
export function registerRunsReplay(runs: Command): void {
  withStoreOptions(
    runs
      .command("replay <run>")
      .description(
        "Replay a governed run from its ledger with its recorded application module; with --counterfactual (or any change), report the first divergence and the transition-by-transition diff.",
      )
      .option("--counterfactual", "report how the runs differ instead of failing at a divergence")
      .option("--input <json>", "a changed graph input (implies --counterfactual)")
      .option(
        "--routing <file>",
        "changed routing rules (a routing configuration) to route the run's event with (implies --counterfactual)",
      )
      .option("--autonomy <level>", "a changed autonomy level (implies --counterfactual)")
      .option("--risk <level>", "a changed risk level (implies --counterfactual)"),
  ).action((runId: string, flags: ReplayFlags) =>
    withRuntimeStore(flags, async (store, _audit, options) => {
      const changes = await changesOf(flags);
      let report: ReplayReport;
      try {
        report = await replayGovernedRun(store, runId, changes);
      } catch (error) {
        // A strict replay that diverged carries its report: print it, as an issue found.
        const failed = isKeelError(error)
          ? (error.details as { report?: ReplayReport } | undefined)?.report
          : undefined;
        if (!failed) throw error;
        report = failed;
      }
      printResult(options, { ok: report.identical, report }, () => describeReport(report));
      if (!report.identical) process.exitCode = 1;
    }).catch((error: unknown) => reportError(flags, error)),
  );
}

async function changesOf(flags: ReplayFlags): Promise<ReplayChanges | undefined> {
  const changes: ReplayChanges = {};
  if (flags.input !== undefined) changes.input = parseJsonOption(flags.input, "--input");
  if (flags.routing !== undefined) changes.routing = (await readJson(flags.routing)) as never;
  if (flags.autonomy !== undefined) changes.autonomy = autonomyFlag(flags.autonomy, "A0");
  if (flags.risk !== undefined) {
    const risk = RiskLevel.safeParse(flags.risk);
    if (!risk.success) {
      throw new KeelError("INVALID_ARGUMENT", `Unknown risk level "${flags.risk}".`, {
        hint: `Use one of ${RiskLevel.options.join(", ")}.`,
      });
    }
    changes.risk = risk.data;
  }
  return flags.counterfactual || Object.keys(changes).length > 0 ? changes : undefined;
}

function describeReport(report: ReplayReport): string {
  const verdict = report.identical
    ? "matched it transition by transition"
    : `diverged at ${report.firstDivergence?.at ?? "?"}`;
  return [
    `${report.mode} replay of run ${report.originalRunId} (as run ${report.replayRunId}): ${verdict}`,
    table(
      ["#", "at", "same", "original", "replay"],
      report.diff.map((row) => [
        String(row.index),
        row.at,
        row.same ? "yes" : "NO",
        brief(row.original),
        row.same ? "" : brief(row.replay),
      ]),
    ),
    report.stoppedBy ? `stopped by ${report.stoppedBy.code}: ${report.stoppedBy.message}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

function brief(summary: Record<string, unknown> | null): string {
  if (summary === null) return "-";
  const text = JSON.stringify(summary);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}
