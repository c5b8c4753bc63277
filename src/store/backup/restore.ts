import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { sql, type Transaction } from "kysely";
import { type Clock, KeelError, systemClock } from "../../core/index.js";
import { sqliteFileError } from "../dialects/sqlite/sqlite-errors.js";
import { checkSqliteFile } from "../dialects/sqlite/sqlite-file-check.js";
import { assertNotTooNew } from "../migrate/kernel-migrations.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import { kernelMigrationsDir, loadMigrationFiles } from "../migrate/migration-files.js";
import { openBackend } from "../open-store.js";
import type { KernelDatabase } from "../schema.js";
import type { StoreLocation } from "../types.js";
import { DERIVED_TABLES, parentsFirst, zoneOf } from "../zones.js";
import { fileTimestamp } from "./backup.js";
import { backupsDir } from "./pre-migrate-backup.js";

/** What `keel db restore` did. */
export interface RestoreResult {
  readonly restoredFrom: string;
  /** Schema version of the backup. */
  readonly version: number;
  /** Where the database that was replaced now lives (SQLite), or null if there was none. */
  readonly previousMovedTo: string | null;
  readonly tables: readonly { name: string; rows: number }[];
}

/**
 * Checks that `path` is a Keel backup this code can restore: a SQLite database with a kernel
 * ledger no newer than the code. Returns its kernel version and table row counts.
 */
export function inspectBackup(path: string): {
  version: number;
  tables: { name: string; rows: number }[];
} {
  if (!existsSync(path)) {
    throw new KeelError("NOT_FOUND", `No backup file at ${path}.`, { details: { path } });
  }
  checkSqliteFile(path);
  let database: Database.Database;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw sqliteFileError(error, path) ?? error;
  }
  try {
    const hasLedger = database
      .prepare(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'config_schema_versions'",
      )
      .pluck()
      .get();
    if (!hasLedger) {
      throw new KeelError(
        "STORE_NOT_A_DATABASE",
        `${path} is not a Keel backup (it has no migration ledger).`,
        {
          details: { path },
        },
      );
    }
    const version = Number(
      database
        .prepare(
          "SELECT coalesce(max(version), 0) FROM config_schema_versions WHERE scope = 'kernel'",
        )
        .pluck()
        .get(),
    );
    const tables = (
      database
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .pluck()
        .all() as string[]
    ).map((name) => ({
      name,
      rows: Number(database.prepare(`SELECT count(*) FROM "${name}"`).pluck().get()),
    }));
    const quick = database.prepare("PRAGMA quick_check").pluck().get();
    if (quick !== "ok") {
      throw new KeelError(
        "STORE_CORRUPT",
        `The backup ${path} fails its integrity check: ${String(quick)}.`,
        {
          details: { path },
        },
      );
    }
    return { version, tables };
  } catch (error) {
    throw sqliteFileError(error, path) ?? error;
  } finally {
    database.close();
  }
}

/**
 * Replaces the database at `location` with the backup at `backupPath`. On SQLite the current
 * file (with its -wal) is moved to `.keel/backups/keel-before-restore-<time>.db` first, so a
 * restore never loses anything; it works even when the current file is corrupt. On Postgres the
 * state, config and plugin tables are emptied and refilled from the backup in one transaction
 * (append-only tables such as the audit log are never emptied: the backup's missing rows are added);
 * the backup's schema version must equal the database's (migrate the backup file first).
 * The scan zone comes back empty: run a scan to regenerate it.
 */
export async function restoreStore(
  location: StoreLocation,
  backupPath: string,
  clock: Clock = systemClock,
): Promise<RestoreResult> {
  const source = resolve(backupPath);
  const inspected = inspectBackup(source);
  const latest = loadMigrationFiles(kernelMigrationsDir(location.dialect)).length;
  assertNotTooNew(inspected.version, latest, `The backup ${source}`);
  if (location.dialect === "sqlite") {
    return restoreSqliteFile(location, source, inspected, clock);
  }
  return restoreIntoPostgres(location, source, inspected);
}

function restoreSqliteFile(
  location: Extract<StoreLocation, { dialect: "sqlite" }>,
  source: string,
  inspected: { version: number; tables: { name: string; rows: number }[] },
  clock: Clock,
): RestoreResult {
  const target = location.path;
  if (resolve(target) === source) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      "The backup is the database itself; nothing to restore.",
    );
  }
  const staged = `${target}.restore-${process.pid}`;
  let previousMovedTo: string | null = null;
  try {
    copyFileSync(source, staged);
    if (existsSync(target)) {
      previousMovedTo = join(
        backupsDir(location.keelDir),
        `keel-before-restore-${fileTimestamp(clock)}.db`,
      );
      moveDatabase(target, previousMovedTo);
    } else {
      for (const suffix of ["-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
    }
    renameSync(staged, target);
  } catch (error) {
    rmSync(staged, { force: true });
    throw (
      sqliteFileError(error, target) ??
      new KeelError("INTERNAL", `Restore failed: ${(error as Error).message}`, { cause: error })
    );
  }
  return {
    restoredFrom: source,
    version: inspected.version,
    previousMovedTo,
    tables: inspected.tables,
  };
}

/** Moves a database file and its WAL companions together. */
function moveDatabase(from: string, to: string): void {
  mkdirSync(join(to, ".."), { recursive: true });
  renameSync(from, to);
  for (const suffix of ["-wal", "-shm"]) {
    if (existsSync(`${from}${suffix}`)) renameSync(`${from}${suffix}`, `${to}${suffix}`);
  }
}

async function restoreIntoPostgres(
  location: Extract<StoreLocation, { dialect: "postgres" }>,
  source: string,
  inspected: { version: number; tables: { name: string; rows: number }[] },
): Promise<RestoreResult> {
  const backend = await openBackend(location);
  const backup = new Database(source, { readonly: true });
  try {
    const current = highestVersion(await readLedger(backend, backend.kysely, { scope: "kernel" }));
    if (current !== inspected.version) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `The backup is at schema version ${inspected.version} and the Postgres database at ${current}; they must match.`,
        {
          details: { backupVersion: inspected.version, databaseVersion: current },
          hint:
            current > inspected.version
              ? `Migrate a copy of the backup first: \`keel db migrate --db <copy-of-backup>\`, then restore the copy.`
              : "Run `keel db migrate` on the Postgres database first.",
        },
      );
    }
    await backend.kysely.transaction().execute(async (tx) => {
      const live = (await backend.introspect(tx)).tables.filter((table) => {
        const zone = zoneOf(table.name);
        return zone === "scan" || zone === "state" || zone === "config" || zone === "plugin";
      });
      const replaced = live.filter((table) => !table.appendOnly);
      if (replaced.length > 0) {
        await sql
          .raw(`TRUNCATE ${replaced.map((t) => `"${t.name}"`).join(", ")} RESTART IDENTITY CASCADE`)
          .execute(tx);
      }
      for (const table of parentsFirst(live)) {
        if (DERIVED_TABLES.has(table.name)) continue; // rebuilt by the records' triggers
        const present = backup
          .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
          .pluck()
          .get(table.name);
        if (!present) continue;
        const backupColumns = backup
          .prepare(`SELECT name FROM pragma_table_info(?)`)
          .pluck()
          .all(table.name) as string[];
        const columns = table.columns.map((c) => c.name).filter((c) => backupColumns.includes(c));
        const rows = backup
          .prepare(`SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${table.name}"`)
          .all() as Record<string, unknown>[];
        for (let start = 0; start < rows.length; start += 500) {
          const chunk = rows.slice(start, start + 500);
          const insert = tx
            .insertInto(table.name as never)
            .values(
              chunk.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]]))) as never,
            );
          // Append-only tables keep every live row; the backup only adds the rows they lack.
          await (table.appendOnly ? insert.onConflict((oc) => oc.doNothing()) : insert).execute();
        }
        await resetIdentity(
          tx,
          table.name,
          table.columns.map((c) => c.name),
        );
      }
    });
    return {
      restoredFrom: source,
      version: inspected.version,
      previousMovedTo: null,
      tables: inspected.tables,
    };
  } finally {
    backup.close();
    await backend.close();
  }
}

/** After explicit ids were inserted, moves an identity column's sequence past the highest id. */
async function resetIdentity(
  tx: Transaction<KernelDatabase>,
  table: string,
  columns: readonly string[],
) {
  if (!columns.includes("id")) return;
  const found = await sql<{
    seq: string | null;
  }>`SELECT pg_get_serial_sequence(${table}, 'id') AS seq`.execute(tx);
  const sequence = found.rows[0]?.seq;
  if (!sequence) return;
  await sql`SELECT setval(${sequence}::regclass, greatest((SELECT coalesce(max(id), 0) FROM ${sql.table(table)}), 1))`.execute(
    tx,
  );
}
