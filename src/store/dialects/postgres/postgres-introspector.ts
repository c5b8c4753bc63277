import { type Kysely, sql } from "kysely";
import type { KernelDatabase } from "../../schema.js";
import type { ConstraintSnapshot, SchemaSnapshot, TableSnapshot } from "../schema-snapshot.js";

/** Reads the live schema of the current schema (`current_schema()`) from pg_catalog. */
export async function introspectPostgres(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot> {
  const tables = await sql<{ name: string; oid: number }>`
    SELECT c.relname::text AS name, c.oid::int8 AS oid
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema()
    ORDER BY c.relname`.execute(db);
  const columns = await sql<{
    table_oid: number;
    name: string;
    type: string;
    not_null: boolean;
    default_value: string | null;
  }>`
    SELECT a.attrelid::int8 AS table_oid, a.attname::text AS name,
           format_type(a.atttypid, NULL) AS type, a.attnotnull AS not_null,
           pg_get_expr(d.adbin, d.adrelid) AS default_value
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY a.attrelid, a.attnum`.execute(db);
  const constraints = await sql<{
    table_oid: number;
    name: string;
    contype: string;
    columns: string[] | null;
    referenced: string | null;
    referenced_columns: string[] | null;
    definition: string | null;
  }>`
    SELECT k.conrelid::int8 AS table_oid, k.conname::text AS name, k.contype::text AS contype,
           (SELECT array_agg(a.attname::text ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY u(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum) AS columns,
           CASE WHEN k.confrelid <> 0 THEN k.confrelid::regclass::text END AS referenced,
           (SELECT array_agg(a.attname::text ORDER BY u.ord) FROM unnest(k.confkey) WITH ORDINALITY u(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum) AS referenced_columns,
           CASE WHEN k.contype = 'c' THEN pg_get_constraintdef(k.oid) END AS definition
    FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace
    WHERE n.nspname = current_schema() AND k.conrelid <> 0
    ORDER BY k.conname`.execute(db);
  const indexes = await sql<{
    table_oid: number;
    name: string;
    unique: boolean;
    partial: boolean;
    columns: string[] | null;
    constraint_backed: boolean;
  }>`
    SELECT i.indrelid::int8 AS table_oid, c.relname::text AS name, i.indisunique AS unique,
           i.indpred IS NOT NULL AS partial,
           (SELECT array_agg(COALESCE(a.attname::text, '<expression>') ORDER BY u.ord) FROM unnest(i.indkey::int2[]) WITH ORDINALITY u(attnum, ord)
              LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.attnum AND u.attnum <> 0) AS columns,
           EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) AS constraint_backed
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema()
    -- A catalog scan's order changes as rows come and go (a rolled-back DDL leaves dead ones):
    -- snapshots compare equal only in a fixed order.
    ORDER BY c.relname`.execute(db);

  // tgtype bits: 2 = BEFORE, 8 = DELETE, 32 = TRUNCATE (pg_trigger.h).
  const guarded = await sql<{ table_oid: number }>`
    SELECT DISTINCT t.tgrelid::int8 AS table_oid FROM pg_trigger t
    WHERE NOT t.tgisinternal AND (t.tgtype & 2) <> 0 AND (t.tgtype & 40) <> 0`.execute(db);
  const appendOnly = new Set(guarded.rows.map((row) => Number(row.table_oid)));
  return {
    tables: tables.rows.map((table): TableSnapshot => {
      const own = <T extends { table_oid: number }>(rows: T[]) =>
        rows.filter((row) => Number(row.table_oid) === Number(table.oid));
      const tableConstraints = own(constraints.rows);
      const primary = tableConstraints.find((constraint) => constraint.contype === "p");
      return {
        name: table.name,
        columns: own(columns.rows).map((column) => ({
          name: column.name,
          type: column.type.toUpperCase(),
          notNull: column.not_null,
          defaultValue: column.default_value,
        })),
        primaryKey: primary?.columns ?? [],
        indexes: own(indexes.rows)
          .filter((index) => !index.constraint_backed)
          .map((index) => ({
            name: index.name,
            unique: index.unique,
            partial: index.partial,
            columns: index.columns ?? [],
          })),
        constraints: tableConstraints.flatMap((constraint): ConstraintSnapshot[] => {
          const kind =
            constraint.contype === "c"
              ? "check"
              : constraint.contype === "u"
                ? "unique"
                : constraint.contype === "f"
                  ? "foreign-key"
                  : undefined;
          // NOT NULL appears as contype 'n' on newer servers; it is a column property, not a name.
          return kind ? [{ name: constraint.name, kind, definition: constraint.definition }] : [];
        }),
        appendOnly: appendOnly.has(Number(table.oid)),
        references: tableConstraints
          .filter((constraint) => constraint.referenced !== null)
          .map((constraint) => unqualified(constraint.referenced ?? "")),
        foreignKeys: tableConstraints
          .filter((constraint) => constraint.contype === "f")
          .map((constraint) => ({
            columns: constraint.columns ?? [],
            table: unqualified(constraint.referenced ?? ""),
            referencedColumns: constraint.referenced_columns ?? [],
          })),
      };
    }),
  };
}

/** `schema."table"` → `table`. */
function unqualified(name: string): string {
  return name.replace(/^.*\./, "").replace(/"/g, "");
}
