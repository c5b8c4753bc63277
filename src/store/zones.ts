import { compareCodePoints } from "../core/index.js";
import type { TableSnapshot } from "./dialects/schema-snapshot.js";

/** Which zone a table belongs to: the seed's three, plugin-owned tables, or something foreign. */
export type TableZone = "scan" | "state" | "config" | "plugin" | "other";

/** The zone of a table from its name prefix. */
export function zoneOf(table: string): TableZone {
  if (table.startsWith("scan_")) return "scan";
  if (table.startsWith("state_")) return "state";
  if (table.startsWith("config_")) return "config";
  if (table.startsWith("plugin_")) return "plugin";
  return "other";
}

/**
 * Kernel tables that are indexes kept in step by the database's own triggers: on Postgres
 * `state_memory_texts` holds each memory record's tsvector (migration 032); on SQLite that name
 * is the FTS5 index. A copy between dialects never moves their rows: inserting the records
 * rebuilds them on the other side.
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set(["state_memory_texts"]);

/**
 * Orders tables so that each comes after the tables it references (parents first): the order to
 * insert in. Reverse it to delete. Cycles fall back to name order.
 */
export function parentsFirst(tables: readonly TableSnapshot[]): TableSnapshot[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const done = new Set<string>();
  const ordered: TableSnapshot[] = [];
  const visit = (table: TableSnapshot, path: Set<string>) => {
    if (done.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of table.references) {
      const parentTable = byName.get(parent);
      if (parentTable && parent !== table.name) visit(parentTable, path);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => compareCodePoints(a.name, b.name)))
    visit(table, new Set());
  return ordered;
}
