import type { Command } from "commander";
import { findOrphans, reconcileOrphan } from "../../catalog/index.js";
import { withStore } from "../catalog/context.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { printResult, reportError, table } from "../output.js";
import { outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

const describeRows = (rows: Record<string, number>) =>
  Object.entries(rows)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");

/** `keel orphans` and `keel orphans reconcile <old> --to <new>`. */
export const catalogOrphansCommands: CliModule = {
  register(program: Command): void {
    const orphans = withStoreOptions(
      program
        .command("orphans")
        .description("History rows (jobs, executions, summaries, …) whose node is gone."),
    ).action(async (raw: StoreCliOptions) => {
      const flags = outputOptions(raw);
      try {
        const found = await withStore(flags, findOrphans);
        printResult(flags, found, () =>
          found.length === 0
            ? "no orphans"
            : table(
                ["path", "rows"],
                found.map((o) => [o.nodeId, describeRows(o.rows)]),
              ),
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(orphans, [0, 2]);

    const reconcile = withStoreOptions(
      orphans
        .command("reconcile")
        .description("Move an orphan's history rows to the node's new path after a rename.")
        .argument("<orphan-path>", "the old path, as `keel orphans` prints it")
        .requiredOption("--to <new-path>", "the node's path now"),
    ).action(async (from: string, raw: StoreCliOptions & { to: string }) => {
      // `--json`, `--db`, … written after `reconcile` land on `orphans`, which declares them too.
      const flags = outputOptions({ ...(orphans.opts() as StoreCliOptions), ...raw });
      try {
        const moved = await withStore(flags, (store) => reconcileOrphan(store, from, flags.to));
        printResult(
          flags,
          { ok: true, from, to: flags.to, moved },
          () => `moved ${describeRows(moved)} from ${from} to ${flags.to}`,
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(reconcile, [0, 2, 5]);
  },
};
