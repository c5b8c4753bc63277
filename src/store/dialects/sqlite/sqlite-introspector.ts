import { type Kysely, sql } from "kysely";
import type { KernelDatabase } from "../../schema.js";
import type {
  ConstraintSnapshot,
  IndexSnapshot,
  SchemaSnapshot,
  TableSnapshot,
} from "../schema-snapshot.js";

interface MasterRow {
  name: string;
  sql: string | null;
}

/** Reads the live schema from `sqlite_master` and the `pragma_*` table functions. */
export async function introspectSqlite(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot> {
  const tables = await sql<MasterRow>`
    SELECT name, sql FROM sqlite_master
    WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
    ORDER BY name`.execute(db);
  const triggers = await sql<{ table: string; sql: string | null }>`
    SELECT tbl_name AS "table", sql FROM sqlite_master WHERE type = 'trigger'`.execute(db);
  const appendOnly = new Set(
    triggers.rows
      .filter(
        (t) =>
          /\bBEFORE\s+DELETE\b/i.test(t.sql ?? "") &&
          /\bRAISE\s*\(\s*(ABORT|FAIL)/i.test(t.sql ?? ""),
      )
      .map((t) => t.table),
  );
  const snapshots: TableSnapshot[] = [];
  for (const table of tables.rows) {
    snapshots.push({
      ...(await introspectTable(db, table)),
      appendOnly: appendOnly.has(table.name),
    });
  }
  return { tables: snapshots };
}

async function introspectTable(
  db: Kysely<KernelDatabase>,
  table: MasterRow,
): Promise<Omit<TableSnapshot, "appendOnly">> {
  const columns = await sql<{ name: string; type: string; notnull: number; pk: number }>`
    SELECT name, type, "notnull", pk FROM pragma_table_info(${table.name}) ORDER BY cid`.execute(
    db,
  );
  const indexList = await sql<{ name: string; unique: number; origin: string; partial: number }>`
    SELECT name, "unique", origin, partial FROM pragma_index_list(${table.name})`.execute(db);
  const indexes: IndexSnapshot[] = [];
  for (const index of indexList.rows) {
    if (index.origin !== "c") continue; // "pk" and "u" are the engine's own, for keys
    const indexColumns = await sql<{ name: string | null }>`
      SELECT name FROM pragma_index_info(${index.name}) ORDER BY seqno`.execute(db);
    indexes.push({
      name: index.name,
      unique: index.unique === 1,
      partial: index.partial === 1,
      columns: indexColumns.rows.map((row) => row.name ?? "<expression>"),
    });
  }
  const foreignKeys = await sql<{ table: string }>`
    SELECT DISTINCT "table" FROM pragma_foreign_key_list(${table.name})`.execute(db);
  return {
    name: table.name,
    columns: columns.rows.map((column) => ({
      name: column.name,
      type: column.type.toUpperCase(),
      notNull: column.notnull === 1 || column.pk > 0,
    })),
    primaryKey: columns.rows
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name),
    indexes,
    constraints: constraintsFromSql(table.sql ?? ""),
    references: foreignKeys.rows.map((row) => row.table),
  };
}

/**
 * SQLite keeps no catalog of constraints, only the CREATE TABLE text: constraint names and
 * kinds are read from it. An unnamed CHECK, UNIQUE or REFERENCES shows up with a null name.
 */
function constraintsFromSql(createSql: string): ConstraintSnapshot[] {
  const found: ConstraintSnapshot[] = [];
  const text = createSql.replace(/'(?:[^']|'')*'/g, "''");
  const pattern =
    /\b(?:CONSTRAINT\s+("?)([A-Za-z_][\w]*)\1\s+)?(CHECK|UNIQUE|REFERENCES|FOREIGN\s+KEY)\b/gi;
  for (const match of text.matchAll(pattern)) {
    const keyword = (match[3] ?? "").toUpperCase();
    // "FOREIGN KEY (…) REFERENCES t" is one constraint: count it once, at FOREIGN KEY.
    if (
      keyword === "REFERENCES" &&
      /FOREIGN\s+KEY\s*\([^)]*\)\s*$/i.test(text.slice(0, match.index))
    ) {
      continue;
    }
    const kind = keyword === "CHECK" ? "check" : keyword === "UNIQUE" ? "unique" : "foreign-key";
    found.push({ name: match[2] ?? null, kind });
  }
  return found;
}
