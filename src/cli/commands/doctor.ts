import type { Command } from "commander";
import { runDoctor } from "../../store/doctor/doctor.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { locationFor, outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

/** A check's status as printed (coloured at print time, see colors.ts). */
const MARK = {
  ok: () => pc.green("ok"),
  warn: () => pc.yellow("warn"),
  error: () => pc.red("error"),
  skipped: () => pc.dim("skipped"),
};

/** `keel doctor`: checks the database; exit 0 all green, 1 warnings, 2 errors. */
export const doctorCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("doctor")
        .description(
          "Check the database: file, integrity, migrations, orphans, plugins (exit 0/1/2).",
        ),
    ).action(async (flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      try {
        const report = await runDoctor(locationFor(options));
        printResult(options, { ok: report.exitCode === 0, ...report }, () => {
          const rows = report.checks.map((c) => [c.id, MARK[c.status](), c.message]);
          const remedies = report.checks
            .filter((c) => c.remedy)
            .map((c) => `${pc.bold(c.id)}: ${c.remedy}`);
          return [
            `${report.database}`,
            table(["check", "status", "detail"], rows),
            ...(remedies.length ? ["", "to fix:", ...remedies] : []),
          ].join("\n");
        });
        process.exitCode = report.exitCode;
      } catch (error) {
        reportError(options, error);
      }
    });
  },
};
