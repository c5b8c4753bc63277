import { join } from "node:path";
import type { Command } from "commander";
import { unreadableThreads } from "../../checkpoint/index.js";
import { toKeelError } from "../../core/index.js";
import { type DoctorCheck, type DoctorReport, runDoctor } from "../../store/doctor/doctor.js";
import type { StoreLocation } from "../../store/index.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import {
  locationFor,
  openCliStore,
  outputOptions,
  type StoreCliOptions,
  withStoreOptions,
} from "../scope.js";
import { saverFor } from "./saver-for.js";

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
        const location = locationFor(options);
        const report = await withThreadsCheck(options, location, await runDoctor(location));
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

/**
 * Adds the `threads` check: the latest checkpoint of every thread read as a resume would (the
 * checkpoint layer's work, so it is added here rather than in the store's doctor). Skipped when
 * the database did not open or its schema is not this Keel's.
 */
async function withThreadsCheck(
  options: StoreCliOptions,
  location: StoreLocation,
  report: DoctorReport,
): Promise<DoctorReport> {
  const ready = report.checks.some((c) => c.id === "migrations" && c.status === "ok");
  let check: DoctorCheck;
  if (!ready) {
    check = {
      id: "threads",
      status: "skipped",
      message: "Threads are read once the database opens at this Keel's schema.",
      remedy: null,
    };
  } else {
    try {
      const store = await openCliStore(options, { autoMigrate: false, readOnly: true });
      try {
        const broken = await unreadableThreads(saverFor(store));
        check =
          broken.length === 0
            ? {
                id: "threads",
                status: "ok",
                message: "The latest checkpoint of every thread reads cleanly.",
                remedy: null,
              }
            : {
                id: "threads",
                status: "error",
                message: `${broken.length} thread(s) cannot be read: ${broken
                  .slice(0, 5)
                  .map(
                    (b) =>
                      `${b.threadId}${b.checkpointNs ? ` (namespace ${b.checkpointNs})` : ""}: ${b.code}`,
                  )
                  .join("; ")}${broken.length > 5 ? "; …" : ""}.`,
                remedy: `Restore a backup taken before the damage (\`keel db restore <backup> --force\`, backups in ${join(location.keelDir, "backups")}), or delete the thread (\`keel runs delete <thread>\`) and run it again.`,
              };
      } finally {
        await store.close();
      }
    } catch (error) {
      const keel = toKeelError(error);
      check = { id: "threads", status: "error", message: keel.message, remedy: null };
    }
  }
  const checks = [...report.checks, check];
  const exitCode = checks.some((c) => c.status === "error")
    ? 2
    : checks.some((c) => c.status === "warn")
      ? 1
      : 0;
  return { ...report, checks, exitCode };
}
