import { type Kysely, sql } from "kysely";
import type { KernelDatabase } from "../../schema.js";
import type { SchemaObject } from "../schema-snapshot.js";

interface Row {
  tables: string[];
  text: string;
}

/**
 * The objects of the current schema as Postgres would recreate them: relations (with row
 * security and comments), columns, constraints (a foreign key touches both tables: it puts
 * triggers on the referenced one), indexes, triggers, inheritance and partitions, rules and
 * policies. A sequence belongs to the table whose column owns it.
 */
export async function postgresSchemaObjects(db: Kysely<KernelDatabase>): Promise<SchemaObject[]> {
  const result = await sql<Row>`
    WITH rel AS (
      SELECT c.oid, c.relname::text AS name, c.relkind::text AS kind, c.relrowsecurity AS rls,
             COALESCE((SELECT t.relname::text FROM pg_depend d JOIN pg_class t ON t.oid = d.refobjid
                        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                          AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
                        LIMIT 1), c.relname::text) AS owner
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
    )
    SELECT ARRAY[owner] AS tables,
           'relation ' || kind || ' ' || name || ' rls=' || rls::text
             || ' comment=' || COALESCE(obj_description(oid, 'pg_class'), '')
             || CASE WHEN kind IN ('v', 'm') THEN ' ' || pg_get_viewdef(oid) ELSE '' END AS text
    FROM rel
    UNION ALL
    SELECT ARRAY[r.name], 'column ' || r.name || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
             || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
             || COALESCE(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
    FROM rel r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
      AND r.kind <> 'S'
    LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
    UNION ALL
    SELECT ARRAY_REMOVE(ARRAY[t.relname::text, f.relname::text], NULL),
           'constraint ' || t.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid
    LEFT JOIN pg_class f ON f.oid = k.confrelid
    WHERE k.connamespace = current_schema()::regnamespace
    UNION ALL
    SELECT ARRAY[i.tablename::text], 'index ' || i.indexname || ' ' || i.indexdef
    FROM pg_indexes i WHERE i.schemaname = current_schema()
    UNION ALL
    SELECT ARRAY[c.relname::text], 'trigger ' || c.relname || '.' || g.tgname || ' ' || pg_get_triggerdef(g.oid)
    FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
    WHERE NOT g.tgisinternal AND c.relnamespace = current_schema()::regnamespace
    UNION ALL
    SELECT ARRAY[child.relname::text, parent.relname::text], 'inherits ' || child.relname || ' ' || parent.relname
    FROM pg_inherits h JOIN pg_class child ON child.oid = h.inhrelid
    JOIN pg_class parent ON parent.oid = h.inhparent
    WHERE child.relnamespace = current_schema()::regnamespace
       OR parent.relnamespace = current_schema()::regnamespace
    UNION ALL
    SELECT ARRAY[r.tablename::text], 'rule ' || r.tablename || '.' || r.rulename || ' ' || r.definition
    FROM pg_rules r WHERE r.schemaname = current_schema()
    UNION ALL
    SELECT ARRAY[p.tablename::text], 'policy ' || p.tablename || '.' || p.policyname || ' ' || p.cmd
             || ' ' || COALESCE(p.qual, '') || ' ' || COALESCE(p.with_check, '')
    FROM pg_policies p WHERE p.schemaname = current_schema()
  `.execute(db);
  return result.rows
    .map((row) => ({ tables: row.tables, text: row.text }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}
