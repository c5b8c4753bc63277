import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { assertNoLiveRuns } from "../../checkpoint/index.js";
import { KeelError } from "../../core/index.js";
import {
  backupStore,
  deleteSqliteDatabase,
  describeLocation,
  dumpPostgres,
  dumpSqlite,
  inspectBackup,
  kernelMigrationStatus,
  type MigrationReport,
  migrate,
  resetStore,
  restoreStore,
  type Store,
  type StoreLocation,
} from "../../store/index.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { printResult, progress, reportError, table } from "../output.js";
import {
  confirm,
  locationFor,
  openCliStore,
  outputOptions,
  type StoreCliOptions,
  withStoreOptions,
} from "../scope.js";
import { humanTime } from "../when.js";
import { pluginMigrationsFor, pluginStatusRows } from "./db-plugins.js";

interface MigrateFlags extends StoreCliOptions {
  dryRun?: boolean;
  status?: boolean;
  to?: string;
  kernelOnly?: boolean;
  plugin?: string;
  backup?: boolean;
}

/** `keel db migrate|backup|restore|reset|dump|shell`: the kernel database's life cycle. */
export const dbCommands: CliModule = {
  register(program: Command): void {
    const db = program
      .command("db")
      .description("The kernel database: migrations, backups, restore, reset, dump, shell.");

    withStoreOptions(
      db
        .command("dump")
        .description("Write a SQL dump (schema and rows) to stdout; Postgres through pg_dump.")
        .option("--tables <names>", "comma-separated tables to dump (default: all)"),
    ).action(async (flags: StoreCliOptions & { tables?: string }) => {
      const options = outputOptions(flags);
      try {
        const tables = flags.tables
          ?.split(",")
          .map((name) => name.trim())
          .filter(Boolean);
        const store = await openCliStore(options);
        try {
          // The dump is the output: SQL on stdout whatever --json says (errors stay JSON).
          if (store.native.dialect === "sqlite") {
            for (const line of dumpSqlite(store.native.database, tables))
              process.stdout.write(`${line}\n`);
          } else if (store.location.dialect === "postgres") {
            await dumpPostgres(store.location, process.stdout, tables);
          }
        } finally {
          await store.close();
        }
      } catch (error) {
        reportError(options, error);
      }
    });

    withStoreOptions(
      db
        .command("shell")
        .description("An interactive SQL shell on the database (sqlite3, or psql for Postgres)."),
    ).action(async (flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      try {
        const location = locationFor(options);
        // Open (checks the file, migrates) first, so the shell never sees a half-made database.
        await (await openCliStore(options)).close();
        const [command, args] =
          location.dialect === "sqlite"
            ? (["sqlite3", [location.path]] as const)
            : (["psql", [location.url]] as const);
        const shell = spawnSync(command, args, { stdio: "inherit" });
        const missing = (shell.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
        if (missing) {
          throw new KeelError("STORE_UNSUPPORTED", `${command} is not installed.`, {
            hint:
              command === "sqlite3"
                ? "Install the sqlite3 command-line shell (e.g. apt-get install sqlite3)."
                : "Install the PostgreSQL client tools (e.g. apt-get install postgresql-client).",
          });
        }
        if (shell.error) throw shell.error;
        process.exitCode = shell.status ?? 2;
      } catch (error) {
        reportError(options, error);
      }
    });

    withStoreOptions(
      db
        .command("migrate")
        .description("Apply pending migrations: the kernel's, then each plugin's in id order.")
        .option("--dry-run", "show what would be applied; change nothing")
        .option("--status", "show applied and pending migrations")
        .option("--to <n>", "stop the kernel at migration <n>")
        .option("--kernel-only", "apply kernel migrations only, no plugin's")
        .option("--plugin <id>", "apply only this plugin's migrations")
        .option("--no-backup", "skip the SQLite pre-migrate backup"),
    ).action(async (flags: MigrateFlags) => {
      const options = outputOptions(flags);
      try {
        const to = flags.to === undefined ? undefined : parseVersion(flags.to);
        // --dry-run and --status change nothing, not even by opening: read-only.
        const store = await openCliStore(options, {
          autoMigrate: false,
          readOnly: flags.dryRun === true || flags.status === true,
        });
        try {
          if (flags.status) {
            const kernel = await kernelMigrationStatus(store);
            const plugins = await pluginStatusRows(store);
            const data = { ok: true, database: describeLocation(store.location), kernel, plugins };
            printResult(options, data, () => renderStatus(data.database, kernel, plugins));
            return;
          }
          const onlyPlugin = flags.plugin;
          const report: MigrationReport = onlyPlugin
            ? { dryRun: flags.dryRun === true, kernel: await unchangedKernel(store), plugins: [] }
            : await migrate(store, {
                to,
                dryRun: flags.dryRun,
                backup: flags.backup,
                onProgress: (message) => progress(options, message),
              });
          const plugins =
            flags.kernelOnly || (to !== undefined && !onlyPlugin)
              ? []
              : await pluginMigrationsFor(store, {
                  only: onlyPlugin,
                  dryRun: flags.dryRun === true,
                  options,
                });
          const full = { ...report, plugins };
          printResult(options, { ok: true, ...full }, () => renderReport(full));
          if (plugins.some((p) => p.status !== "enabled")) process.exitCode = 1;
        } finally {
          await store.close();
        }
      } catch (error) {
        reportError(options, error);
      }
    });

    withStoreOptions(
      db
        .command("backup")
        .description("Write a backup of the state and config zones (a SQLite file).")
        .option("--out <path>", "where to write it (default .keel/backups/<time>.db)"),
    ).action(async (flags: StoreCliOptions & { out?: string }) => {
      const options = outputOptions(flags);
      try {
        const store = await openCliStore(options);
        try {
          const result = await backupStore(store, { out: flags.out });
          printResult(
            options,
            { ok: true, ...result },
            () =>
              `${pc.green("backup written")} ${result.path} (${result.bytes} bytes)\n${table(
                ["table", "rows"],
                result.tables.map((t) => [t.name, String(t.rows)]),
              )}`,
          );
        } finally {
          await store.close();
        }
      } catch (error) {
        reportError(options, error);
      }
    });

    withStoreOptions(
      db
        .command("restore <path>")
        .description("Replace the database with a backup (asks first unless --force).")
        .option("--force", "do not ask for confirmation"),
    ).action(async (path: string, flags: StoreCliOptions & { force?: boolean }) => {
      const options = outputOptions(flags);
      try {
        const location = locationFor(options);
        const inspected = inspectBackup(path);
        await refuseWhileRunsLive(options, location, "restore the database");
        await confirm(
          options,
          `Replace ${describeLocation(location)} with ${path} (schema v${inspected.version})?`,
        );
        const result = await restoreStore(location, path);
        // Opening migrates a backup taken by an older Keel up to this one.
        const store = await openCliStore(options);
        await store.close();
        printResult(options, { ok: true, ...result }, () =>
          [
            `${pc.green("restored")} ${describeLocation(location)} from ${result.restoredFrom}`,
            result.previousMovedTo
              ? `the replaced database was kept at ${result.previousMovedTo}`
              : "",
            "the scan zone is empty: run a scan to regenerate it",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      } catch (error) {
        reportError(options, error);
      }
    });

    withStoreOptions(
      db
        .command("reset")
        .description("Empty the scan and state zones, keep config (asks first unless --force).")
        .option("--force", "do not ask for confirmation")
        .option("--hard", "delete the database file entirely (SQLite)"),
    ).action(async (flags: StoreCliOptions & { force?: boolean; hard?: boolean }) => {
      const options = outputOptions(flags);
      try {
        const location = locationFor(options);
        if (flags.hard) {
          if (location.dialect !== "sqlite") {
            throw new KeelError(
              "STORE_UNSUPPORTED",
              "`db reset --hard` deletes a SQLite file; on Postgres drop the database instead.",
            );
          }
          await refuseWhileRunsLive(options, location, "delete the database");
          await confirm(options, `Delete ${location.path} and everything in it?`);
          const removed = deleteSqliteDatabase(location);
          printResult(
            options,
            { ok: true, removed },
            () => `${pc.green("deleted")} ${removed.join(", ") || "(nothing there)"}`,
          );
          return;
        }
        await refuseWhileRunsLive(options, location, "reset the database");
        await confirm(
          options,
          `Empty the scan and state zones (jobs, runs, checkpoints, plugin data) of ${describeLocation(location)}?`,
        );
        const store = await openCliStore(options);
        try {
          const result = await resetStore(store);
          printResult(
            options,
            { ok: true, ...result },
            () =>
              `${pc.green("reset")} ${describeLocation(location)}\n${table(
                ["table", "rows deleted"],
                result.tables.map((t) => [t.name, String(t.rowsDeleted)]),
              )}`,
          );
        } finally {
          await store.close();
        }
      } catch (error) {
        reportError(options, error);
      }
    });
  },
};

/**
 * STORE_IN_USE while a run holds a live thread lease: a restore or reset under a live run
 * corrupts its thread (or, on SQLite, sends its writes to the file moved aside), and --force
 * only skips the question. A database that does not exist or does not open (a damaged file
 * being restored over) has no run we could see, and is let through.
 */
async function refuseWhileRunsLive(
  options: StoreCliOptions,
  location: StoreLocation,
  action: string,
): Promise<void> {
  if (location.dialect === "sqlite" && !existsSync(location.path)) return;
  let store: Store;
  try {
    store = await openCliStore(options, { autoMigrate: false, readOnly: true });
  } catch {
    return;
  }
  try {
    await assertNoLiveRuns(store, action, Date.now());
  } finally {
    await store.close();
  }
}

function parseVersion(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    throw new KeelError("INVALID_ARGUMENT", `--to takes a migration number, not "${text}".`);
  }
  return value;
}

async function unchangedKernel(store: Parameters<typeof kernelMigrationStatus>[0]) {
  const status = await kernelMigrationStatus(store);
  if (status.pending.length > 0) {
    throw new KeelError(
      "MIGRATION_PENDING",
      `Kernel migrations are pending (${status.pending.map((p) => p.name).join(", ")}); plugins migrate after the kernel.`,
      { hint: "Run `keel db migrate --kernel-only` first." },
    );
  }
  return { from: status.current, to: status.current, applied: [], backupPath: null };
}

function renderStatus(
  database: string,
  kernel: Awaited<ReturnType<typeof kernelMigrationStatus>>,
  plugins: Awaited<ReturnType<typeof pluginStatusRows>>,
): string {
  const rows = [
    ...kernel.applied.map((m) => [
      "kernel",
      String(m.version).padStart(3, "0"),
      m.description,
      "applied",
      humanTime(m.appliedAt),
    ]),
    ...kernel.pending.map((m) => [
      "kernel",
      String(m.version).padStart(3, "0"),
      m.name,
      "pending",
      "",
    ]),
    ...plugins.flatMap((p) => [
      ...p.applied.map((m) => [
        p.pluginId,
        String(m.version).padStart(3, "0"),
        m.name,
        "applied",
        "",
      ]),
      ...p.pending.map((m) => [
        p.pluginId,
        String(m.version).padStart(3, "0"),
        m.name,
        p.status === "enabled" ? "pending" : p.status,
        p.reason ?? "",
      ]),
    ]),
  ];
  const mismatch =
    kernel.userVersion !== kernel.current
      ? `\n${pc.yellow("warning")} user_version is ${kernel.userVersion} but the ledger says ${kernel.current}: run \`keel db migrate\` (it re-aligns it).`
      : "";
  return `${database}: kernel at v${kernel.current} of ${kernel.latest}\n${table(["owner", "version", "name", "state", "detail"], rows)}${mismatch}`;
}

function renderReport(report: MigrationReport): string {
  const lines: string[] = [];
  const verb = report.dryRun ? "would apply" : "applied";
  if (report.kernel.applied.length === 0) lines.push(`kernel: up to date at v${report.kernel.to}`);
  else {
    lines.push(
      `kernel: v${report.kernel.from} → v${report.kernel.to}, ${verb} ${report.kernel.applied.map((m) => m.name).join(", ")}`,
    );
  }
  if (report.kernel.backupPath) lines.push(`backup: ${report.kernel.backupPath}`);
  for (const plugin of report.plugins) {
    const detail =
      plugin.status === "enabled"
        ? plugin.applied.length > 0
          ? `${verb} ${plugin.applied.map((m) => m.name).join(", ")}`
          : "up to date"
        : `${pc.red(plugin.status)}: ${plugin.reason ?? ""}`;
    lines.push(`plugin ${plugin.pluginId}: ${detail}`);
  }
  return lines.join("\n");
}
