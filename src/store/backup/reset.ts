import { existsSync, rmSync } from "node:fs";
import { sql } from "kysely";
import { compareCodePoints } from "../../core/index.js";
import { MIGRATION_LOCK_SUFFIX } from "../dialects/sqlite/sqlite-backend.js";
import { internalsOf } from "../open-store.js";
import type { Store, StoreLocation } from "../types.js";
import { parentsFirst, zoneOf } from "../zones.js";

/** What `keel db reset` emptied. */
export interface ResetResult {
  readonly tables: readonly { name: string; rowsDeleted: number }[];
}

/**
 * `keel db reset`: empties the scan and state zones and every plugin table, keeping the config
 * zone (preferences, plugin toggles, the migration ledger) and the schema itself, so the ledger
 * still describes the tables. Append-only tables (the audit log) are kept: their triggers refuse
 * deletion by design, and an audit trail that a reset could erase would not be one. One
 * transaction: all or nothing.
 */
export async function resetStore(store: Store): Promise<ResetResult> {
  const { backend } = internalsOf(store);
  return store.transaction(async (tx) => {
    const tables = (await backend.introspect(tx)).tables.filter((table) => {
      const zone = zoneOf(table.name);
      return (zone === "scan" || zone === "state" || zone === "plugin") && !table.appendOnly;
    });
    const counts: { name: string; rowsDeleted: number }[] = [];
    for (const table of tables) {
      const result = await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM ${sql.table(table.name)}`.execute(tx);
      counts.push({ name: table.name, rowsDeleted: Number(result.rows[0]?.n ?? 0) });
    }
    if (backend.name === "postgres") {
      if (tables.length > 0) {
        await sql
          .raw(`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(", ")} RESTART IDENTITY`)
          .execute(tx);
      }
    } else {
      // Children before parents, so foreign keys hold at every step.
      for (const table of parentsFirst(tables).reverse()) {
        await sql`DELETE FROM ${sql.table(table.name)}`.execute(tx);
      }
      if (tables.length > 0 && (await backend.tableExists(tx, "sqlite_sequence"))) {
        await sql`DELETE FROM sqlite_sequence WHERE name IN (${sql.join(tables.map((t) => t.name))})`.execute(
          tx,
        );
      }
    }
    return { tables: counts.sort((a, b) => compareCodePoints(a.name, b.name)) };
  });
}

/** `keel db reset --hard` on SQLite: deletes the database file and its WAL companions. */
export function deleteSqliteDatabase(
  location: Extract<StoreLocation, { dialect: "sqlite" }>,
): string[] {
  const removed: string[] = [];
  for (const suffix of ["", "-wal", "-shm", MIGRATION_LOCK_SUFFIX]) {
    const file = `${location.path}${suffix}`;
    if (existsSync(file)) {
      rmSync(file);
      removed.push(file);
    }
  }
  return removed;
}
