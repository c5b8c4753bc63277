import type BetterSqlite3 from "better-sqlite3";
import { issueRow, linkRow, nodeRow } from "./rows.js";
import type { ScanFacts, WritePlan } from "./write-plan.js";

/** Rows per INSERT statement: one call into SQLite per batch instead of per row. */
const BATCH = 64;
/** The page cache (KiB) while a scan is written: a full scan's rows and indexes fit in it. */
const WRITE_CACHE_KIB = 64 * 1024;
const SCAN_TABLES = ["scan_links", "scan_issues", "scan_nodes", "scan_files"] as const;

const NODE_COLUMNS = Object.keys(nodeRow({ bytes: {} } as never, 0));
const LINK_COLUMNS = Object.keys(linkRow({ sources: [] } as never));
const ISSUE_COLUMNS = Object.keys(issueRow({ nodeIds: [] } as never));
const FILE_COLUMNS = ["path", "modified_at", "file_bytes"];

// Prepared statements per database and text (INSERTs of BATCH rows and of the remainder).
const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function statement(db: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let found = cache.get(text);
  if (!found) {
    found = db.prepare(text);
    cache.set(text, found);
  }
  return found;
}

/**
 * Inserts a row per item, BATCH rows to a statement. `row` gives the item's columns in `columns`
 * order; their values are copied into one parameter array reused for every batch (a full scan
 * writes ~110,000 rows: no array per row or per batch).
 */
function insertRows<T>(
  db: BetterSqlite3.Database,
  table: string,
  columns: readonly string[],
  items: readonly T[],
  row: (item: T) => Record<string, unknown>,
): void {
  const one = `(${columns.map(() => "?").join(", ")})`;
  const sqlFor = (count: number) =>
    `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array(count).fill(one).join(", ")}`;
  const write = (insert: BetterSqlite3.Statement, from: number, to: number, params: unknown[]) => {
    let at = 0;
    for (let i = from; i < to; i++) {
      const values = row(items[i] as T);
      for (const column in values) params[at++] = values[column];
    }
    insert.run(params);
  };
  const full = items.length - (items.length % BATCH);
  if (full > 0) {
    const batch = statement(db, sqlFor(BATCH));
    const params = new Array<unknown>(BATCH * columns.length);
    for (let start = 0; start < full; start += BATCH) write(batch, start, start + BATCH, params);
  }
  if (full < items.length) {
    const rest = items.length - full;
    write(statement(db, sqlFor(rest)), full, items.length, new Array(rest * columns.length));
  }
}

function deleteRows(
  db: BetterSqlite3.Database,
  table: string,
  column: string,
  keys: readonly unknown[],
): void {
  const remove = statement(db, `DELETE FROM ${table} WHERE ${column} = ?`);
  for (const key of keys) remove.run(key);
}

/**
 * The secondary indexes of the scan tables, dropped: a full scan inserts its rows unindexed and
 * builds each index once afterwards (one sort instead of 100,000 tree insertions). Returns the
 * statements that recreate them, exactly as the migrations wrote them.
 */
function dropIndexes(db: BetterSqlite3.Database): string[] {
  const indexes = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${SCAN_TABLES.map(() => "?").join(", ")})`,
    )
    .all(...SCAN_TABLES) as { name: string; sql: string }[];
  for (const { name } of indexes) db.prepare(`DROP INDEX "${name.replace(/"/g, '""')}"`).run();
  return indexes.map((index) => index.sql);
}

/** The SQLite fast path of `persistScan`: the plan's rows, one IMMEDIATE transaction. */
export function persistScanSqlite(
  db: BetterSqlite3.Database,
  result: ScanFacts,
  planFor: (storedScannedAt: number | null) => WritePlan | null,
  settingsHash: string,
): boolean {
  const cache = db.pragma("cache_size", { simple: true }) as number;
  db.pragma(`cache_size = -${WRITE_CACHE_KIB}`);
  try {
    return db
      .transaction(() => {
        const stored = db.prepare("SELECT scanned_at FROM scan_results WHERE id = 1").pluck().get();
        const plan = planFor(stored === undefined ? null : Number(stored));
        if (!plan) return false;
        const rebuild = plan.replaceAll ? dropIndexes(db) : [];
        const tables = plan.replaceAll ? [...SCAN_TABLES, "scan_results"] : ["scan_results"];
        for (const table of tables) db.prepare(`DELETE FROM ${table}`).run();
        deleteRows(db, "scan_links", "id", plan.deleteLinkIds);
        deleteRows(db, "scan_issues", "id", plan.deleteIssueIds);
        deleteRows(db, "scan_nodes", "path", plan.deleteNodes);
        deleteRows(db, "scan_files", "path", plan.deleteFiles);
        insertRows(db, "scan_nodes", NODE_COLUMNS, plan.insertNodes, (node) =>
          nodeRow(node, result.scannedAt),
        );
        insertRows(db, "scan_links", LINK_COLUMNS, plan.insertLinks, linkRow);
        insertRows(db, "scan_issues", ISSUE_COLUMNS, plan.insertIssues, issueRow);
        insertRows(db, "scan_files", FILE_COLUMNS, plan.insertFiles, ([path, stamp]) => ({
          path,
          modified_at: stamp.modifiedAt,
          file_bytes: stamp.size,
        }));
        for (const sql of rebuild) db.prepare(sql).run();
        db.prepare(
          "INSERT INTO scan_results (id, scanned_at, scope, roots_json, adapters_json, scanned_by_json, files_walked_count, files_skipped_count, duration_ms, settings_hash) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(
          result.scannedAt,
          result.scope,
          JSON.stringify(result.roots),
          JSON.stringify(result.adapters ?? []),
          result.scannedBy ? JSON.stringify(result.scannedBy) : null,
          result.stats.filesWalked,
          result.stats.filesSkipped,
          result.stats.durationMs,
          settingsHash,
        );
        return true;
      })
      .immediate();
  } finally {
    db.pragma(`cache_size = ${cache}`);
  }
}
