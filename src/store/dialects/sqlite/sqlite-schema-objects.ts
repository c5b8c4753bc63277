import { type Kysely, sql } from "kysely";
import type { KernelDatabase } from "../../schema.js";
import type { SchemaObject } from "../schema-snapshot.js";

/**
 * SQLite keeps every schema object's definition in `sqlite_master` (`tbl_name` is the table an
 * index or trigger belongs to); the user_version lives in the header. A table also touches the
 * tables its foreign keys reference.
 */
export async function sqliteSchemaObjects(db: Kysely<KernelDatabase>): Promise<SchemaObject[]> {
  // A table's foreign keys bind the tables they reference too (their deletes are checked).
  const rows = await sql<{
    type: string;
    name: string;
    tbl_name: string;
    sql: string | null;
    refs: string | null;
  }>`
    SELECT m.type, m.name, m.tbl_name, m.sql,
           CASE WHEN m.type = 'table'
             THEN (SELECT group_concat(DISTINCT f."table") FROM pragma_foreign_key_list(m.name) f)
           END AS refs
    FROM sqlite_master m ORDER BY m.type, m.name`.execute(db);
  const version = await sql<{ user_version: number }>`PRAGMA user_version`.execute(db);
  return [
    ...rows.rows.map((row) => ({
      tables: [row.tbl_name, ...(row.refs ? row.refs.split(",") : [])],
      text: `${row.type} ${row.name}: ${row.sql ?? ""}`,
    })),
    { tables: [], text: `user_version ${version.rows[0]?.user_version ?? 0}` },
  ];
}
