import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { KeelError } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import type { TableSnapshot } from "../dialects/schema-snapshot.js";
import { SqliteKyselyDialect } from "../dialects/sqlite/sqlite-driver.js";
import { introspectSqlite } from "../dialects/sqlite/sqlite-introspector.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import { migrate } from "../migrate/migrate.js";
import { kernelMigrationsDir } from "../migrate/migration-files.js";
import { openStore } from "../open-store.js";
import type { KernelDatabase } from "../schema.js";
import { DERIVED_TABLES, parentsFirst, zoneOf } from "../zones.js";

/** A value read from Postgres, as SQLite stores it. */
export function toSqliteValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "bigint") return Number(value);
  return value;
}

/**
 * The Postgres backup: a new SQLite file migrated to the database's kernel version, with every
 * row of the state, config and plugin tables copied in (one consistent snapshot: the reads run
 * in one REPEATABLE READ transaction).
 */
export async function copyPostgresToSqlite(
  backend: StoreBackend,
  _migrationsDir: string,
  dest: string,
) {
  const temporary = `${dest}.partial-${process.pid}`;
  try {
    mkdirSync(dirname(dest), { recursive: true });
    rmSync(temporary, { force: true });
    const version = highestVersion(await readLedger(backend, backend.kysely, { scope: "kernel" }));
    const copy = await openStore({
      db: temporary,
      autoMigrate: false,
      migrationsDir: kernelMigrationsDir("sqlite"),
    });
    try {
      if (version > 0) await migrate(copy, { to: version, backup: false });
    } finally {
      await copy.close();
    }
    const target = new Database(temporary);
    try {
      await backend.kysely.transaction().execute(async (tx) => {
        await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`.execute(tx);
        const source = await backend.introspect(tx);
        const existing = new Map(
          (
            await introspectSqlite(
              // introspectSqlite only runs SQL; a tiny adapter runs it on the target file.
              sqliteKysely(target),
            )
          ).tables.map((table) => [table.name, table]),
        );
        // Parents before children: the copy enforces foreign keys as the database does.
        for (const table of parentsFirst(source.tables)) {
          const zone = zoneOf(table.name);
          if (zone === "scan" || zone === "other" || DERIVED_TABLES.has(table.name)) continue;
          const targetTable = existing.get(table.name) ?? createLike(target, table);
          const columns = table.columns
            .map((column) => column.name)
            .filter((name) => targetTable.columns.some((c) => c.name === name));
          const rows = await sql<
            Record<string, unknown>
          >`SELECT * FROM ${sql.table(table.name)}`.execute(tx);
          if (table.name === "config_schema_versions") continue; // already written by migrate()
          const insert = target.prepare(
            `INSERT INTO "${table.name}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
          );
          target.transaction(() => {
            for (const row of rows.rows) insert.run(...columns.map((c) => toSqliteValue(row[c])));
          })();
        }
        // Plugin ledger rows: copy those the kernel migrate did not write.
        const ledger = await tx
          .selectFrom("config_schema_versions")
          .selectAll()
          .where("scope", "=", "plugin")
          .execute();
        const insertLedger = target.prepare(
          "INSERT INTO config_schema_versions (scope, owner_id, version, description, applied_at) VALUES (?, ?, ?, ?, ?)",
        );
        for (const row of ledger) {
          insertLedger.run(row.scope, row.owner_id, row.version, row.description, row.applied_at);
        }
      });
    } finally {
      target.close();
    }
    renameSync(temporary, dest);
  } catch (error) {
    rmSync(temporary, { force: true });
    if (error instanceof KeelError) throw error;
    throw new KeelError(
      "STORE_BACKUP_FAILED",
      `Could not write the backup ${dest}: ${(error as Error).message}.`,
      {
        cause: error,
        details: { dest },
      },
    );
  }
}

/** A plugin table absent from the SQLite copy, created with SQLite types matching Postgres's. */
function createLike(target: Database.Database, table: TableSnapshot): TableSnapshot {
  const columns = table.columns.map((column) => `"${column.name}" ${sqliteType(column.type)}`);
  const key =
    table.primaryKey.length > 0
      ? [`PRIMARY KEY (${table.primaryKey.map((c) => `"${c}"`).join(", ")})`]
      : [];
  target.exec(`CREATE TABLE "${table.name}" (${[...columns, ...key].join(", ")})`);
  return table;
}

function sqliteType(postgresType: string): string {
  if (/INT|BOOL/.test(postgresType)) return "INTEGER";
  if (/NUMERIC|REAL|DOUBLE|FLOAT/.test(postgresType)) return "REAL";
  if (/BYTEA/.test(postgresType)) return "BLOB";
  return "TEXT";
}

function sqliteKysely(database: Database.Database): Kysely<KernelDatabase> {
  return new Kysely<KernelDatabase>({ dialect: new SqliteKyselyDialect(database) });
}
