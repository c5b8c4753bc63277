import { type Kysely, sql } from "kysely";
import type { KernelDatabase } from "../../schema.js";
import type {
  ConstraintSnapshot,
  ForeignKeySnapshot,
  IndexSnapshot,
  SchemaSnapshot,
  TableSnapshot,
} from "../schema-snapshot.js";

interface MasterRow {
  name: string;
  sql: string | null;
}

/**
 * Reads the live schema from `sqlite_master` and the `pragma_*` table functions. Virtual tables
 * (an FTS5 index such as `state_memory_texts`) and their shadow tables are left out: they are
 * indexes the engine keeps in step with a real table through triggers, with columns and keys of
 * the engine's own making (so the naming rules do not apply), and resetting, restoring or copying
 * the real table rebuilds them.
 */
export async function introspectSqlite(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot> {
  const tables = await sql<MasterRow>`
    SELECT name, sql FROM sqlite_master
    WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
      AND name NOT IN (SELECT name FROM pragma_table_list WHERE type IN ('virtual', 'shadow'))
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
  const columns = await sql<{
    name: string;
    type: string;
    notnull: number;
    pk: number;
    dflt_value: string | null;
  }>`
    SELECT name, type, "notnull", pk, dflt_value FROM pragma_table_info(${table.name}) ORDER BY cid`.execute(
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
  const foreignKeys = await sql<{ id: number; table: string; from: string; to: string | null }>`
    SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(${table.name})
    ORDER BY id, seq`.execute(db);
  const keys = new Map<number, ForeignKeySnapshot>();
  for (const row of foreignKeys.rows) {
    const key = keys.get(row.id) ?? { columns: [], table: row.table, referencedColumns: [] };
    keys.set(row.id, {
      ...key,
      columns: [...key.columns, row.from],
      referencedColumns: [...key.referencedColumns, row.to ?? "<primary key>"],
    });
  }
  // SQLite lets NULL into a PRIMARY KEY column not declared NOT NULL; only a one-column
  // INTEGER PRIMARY KEY (the rowid) can never hold one: NULL there means "the next rowid".
  const keyColumns = columns.rows.filter((column) => column.pk > 0);
  const rowid =
    keyColumns.length === 1 && keyColumns[0]?.type.toUpperCase() === "INTEGER"
      ? keyColumns[0].name
      : null;
  return {
    name: table.name,
    columns: columns.rows.map((column) => ({
      name: column.name,
      type: column.type.toUpperCase(),
      notNull: column.notnull === 1 || column.name === rowid,
      defaultValue: column.dflt_value,
    })),
    primaryKey: columns.rows
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name),
    indexes,
    constraints: constraintsFromSql(table.sql ?? ""),
    references: [...new Set(foreignKeys.rows.map((row) => row.table))],
    foreignKeys: [...keys.values()],
  };
}

/**
 * SQLite keeps no catalog of constraints, only the CREATE TABLE text: constraint names and
 * kinds are read from it. An unnamed CHECK, UNIQUE or REFERENCES shows up with a null name.
 */
function constraintsFromSql(createSql: string): ConstraintSnapshot[] {
  const found: ConstraintSnapshot[] = [];
  // Literals blanked to the same length, so positions in `text` are positions in `createSql`.
  const text = createSql.replace(
    /'(?:[^']|'')*'/g,
    (literal) => `'${" ".repeat(literal.length - 2)}'`,
  );
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
    const definition =
      kind === "check"
        ? parenthesised(createSql, text, (match.index ?? 0) + match[0].length)
        : null;
    found.push({ name: match[2] ?? null, kind, definition });
  }
  return found;
}

/** The balanced `( … )` that starts at or after `from` in `text`, cut from `source`. */
function parenthesised(source: string, text: string, from: number): string | null {
  const open = text.indexOf("(", from);
  if (open === -1) return null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return source.slice(open, i + 1);
  }
  return null;
}
