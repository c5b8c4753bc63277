import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { type Clock, systemClock } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import { zoneOf } from "../zones.js";
import { copyPostgresToSqlite } from "./postgres-to-sqlite.js";
import { backupsDir } from "./pre-migrate-backup.js";
import { copySqliteDatabase, freshBackupPath } from "./sqlite-copy.js";

/** What `keel db backup` wrote. */
export interface BackupResult {
  readonly path: string;
  readonly bytes: number;
  /** Tables in the backup with their row counts (state_, config_ and plugin tables). */
  readonly tables: readonly { name: string; rows: number }[];
}

/** A timestamp safe in file names: 2026-11-22T04-50-00-123Z. */
export function fileTimestamp(clock: Clock = systemClock): string {
  return new Date(clock.now()).toISOString().replace(/[:.]/g, "-");
}

/**
 * Writes a backup of the state and config zones (and plugin tables) as a SQLite file: the scan
 * zone's tables are kept but emptied, since `scan` regenerates them. On SQLite it is a WAL
 * checkpoint and a transaction-consistent copy; on Postgres the rows are copied into a new SQLite
 * file migrated to the same schema version, so every backup restores the same way.
 *
 * @example
 * const { path } = await backupStore(store); // .keel/backups/2026-11-22T04-50-00-123Z.db
 */
export async function backupStore(
  store: Store,
  options: { out?: string | undefined; clock?: Clock } = {},
): Promise<BackupResult> {
  const { backend, migrationsDir } = internalsOf(store);
  const dest = options.out
    ? resolve(options.out)
    : freshBackupPath(
        join(backupsDir(store.location.keelDir), `${fileTimestamp(options.clock)}.db`),
      );
  if (backend.native.dialect === "sqlite") {
    const database = backend.native.database;
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(backend.kysely);
    copySqliteDatabase(database, dest, emptyScanZone);
  } else {
    await copyPostgresToSqlite(backend, migrationsDir, dest);
  }
  return { path: dest, bytes: statSync(dest).size, tables: countRows(dest) };
}

/** Empties the scan zone of a copy: backups hold state and config only. */
function emptyScanZone(copy: string): void {
  const database = new Database(copy);
  try {
    const tables = database
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'scan\\_%' ESCAPE '\\'",
      )
      .pluck()
      .all() as string[];
    database.transaction(() => {
      for (const table of tables) database.exec(`DELETE FROM "${table}"`);
    })();
    database.exec("VACUUM");
  } finally {
    database.close();
  }
}

/** Row counts of the backed-up zones in a backup file. */
export function countRows(path: string): { name: string; rows: number }[] {
  const database = new Database(path, { readonly: true });
  try {
    const tables = database
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return tables
      .filter((name) => zoneOf(name) !== "scan")
      .map((name) => ({
        name,
        rows: Number(database.prepare(`SELECT count(*) FROM "${name}"`).pluck().get()),
      }));
  } finally {
    database.close();
  }
}

export type { StoreBackend };
