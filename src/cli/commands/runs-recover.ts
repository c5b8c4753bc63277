import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { type Recovery, recoverAbandonedRuns, recoverGovernedRun } from "../../runtime/index.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { continuationJson, describeContinuation, withRuntimeStore } from "./runtime-cli.js";

type Recovered = Recovery | { runId: string; error: { code: string; message: string } };

/**
 * `keel runs recover [<run> | --all]`: after a governed process was killed, its runs stay
 * `running` and its calls `attempted`. Recovery marks those calls `unknown` (audited), then the
 * run goes on from its last checkpoint and waits for `keel ledger resolve` on each call in doubt.
 */
export function registerRunsRecover(runs: Command): void {
  withStoreOptions(
    runs
      .command("recover [run]")
      .description(
        "After a governed process was killed: mark its lapsed `attempted` calls unknown and continue the run (it then waits for `keel ledger resolve`).",
      )
      .option(
        "--all",
        "every governed run whose process is gone (running, nobody holds its lease)",
      ),
  ).action((runId: string | undefined, flags: StoreCliOptions & { all?: boolean }) =>
    withRuntimeStore(flags, async (store, _audit, options) => {
      if ((runId === undefined) === (flags.all !== true)) {
        throw new KeelError("INVALID_ARGUMENT", "Name one run, or pass --all (not both).", {
          hint: "`keel runs recover <run>` or `keel runs recover --all`; `keel runs list` shows runs.",
        });
      }
      const recovered: Recovered[] =
        runId !== undefined
          ? [await recoverGovernedRun(store, runId)]
          : await recoverAbandonedRuns(store);
      const failed = recovered.some((r) => "error" in r);
      printResult(options, { ok: !failed, recovered: recovered.map(toJson) }, () =>
        recovered.length === 0 ? "no run to recover" : recovered.map(describe).join("\n"),
      );
      if (failed) process.exitCode = 2;
    }).catch((error: unknown) => reportError(flags, error)),
  );
}

function toJson(r: Recovered): Record<string, unknown> {
  if ("error" in r) return { runId: r.runId, error: r.error };
  return {
    runId: r.runId,
    before: r.before,
    outcome: r.outcome,
    markedUnknown: r.markedUnknown,
    run: r.result ? continuationJson({ continued: true, result: r.result }) : null,
  };
}

function describe(r: Recovered): string {
  if ("error" in r) return `run ${r.runId}: not recovered (${r.error.code}): ${r.error.message}`;
  const marked = r.markedUnknown.map(
    (id) =>
      `  call ${id} is now unknown: check whether its effect happened, then \`keel ledger resolve ${id} --outcome succeeded|failed --reason "…"\``,
  );
  if (r.outcome === "finished") return `run ${r.runId} is ${r.before}: nothing to recover`;
  if (r.outcome === "no-app") {
    return [
      `run ${r.runId} recorded no module or document: its calls were marked, its own process must resume it`,
      ...marked,
    ].join("\n");
  }
  const result = r.result;
  return [
    result ? describeContinuation({ continued: true, result }) : `run ${r.runId} recovered`,
    ...marked,
  ].join("\n");
}
