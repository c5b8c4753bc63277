import type BetterSqlite3 from "better-sqlite3";
import type { FileStamp } from "../fs/read-file.js";
import type { ScanResult } from "../model.js";
import { issueRow, linkRow, nodeRow } from "./rows.js";

// Prepared statements per database: a scan of 10,000 nodes writes through them in one
// transaction (the query builder's multi-row INSERTs cost far more to compile than to run).
const statements = new WeakMap<BetterSqlite3.Database, Record<string, BetterSqlite3.Statement>>();

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
}

const NODE_COLUMNS = Object.keys(nodeRow({ bytes: {} } as never, 0));
const LINK_COLUMNS = Object.keys(linkRow({ sources: [] } as never));
const ISSUE_COLUMNS = Object.keys(issueRow({ nodeIds: [] } as never));

function prepared(db: BetterSqlite3.Database): Record<string, BetterSqlite3.Statement> {
  let found = statements.get(db);
  if (!found) {
    found = {
      node: db.prepare(insertSql("scan_nodes", NODE_COLUMNS)),
      link: db.prepare(insertSql("scan_links", LINK_COLUMNS)),
      issue: db.prepare(insertSql("scan_issues", ISSUE_COLUMNS)),
      file: db.prepare("INSERT INTO scan_files (path, modified_at, file_bytes) VALUES (?, ?, ?)"),
      result: db.prepare(
        "INSERT INTO scan_results (id, scanned_at, scope, roots_json, adapters_json, scanned_by_json, files_walked_count, files_skipped_count, duration_ms, settings_hash) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
    };
    statements.set(db, found);
  }
  return found;
}

/** The SQLite fast path of `persistScan`: the same rows, one IMMEDIATE transaction. */
export function persistScanSqlite(
  db: BetterSqlite3.Database,
  result: ScanResult,
  stamps: ReadonlyMap<string, FileStamp>,
  settingsHash: string,
): void {
  const s = prepared(db);
  db.transaction(() => {
    for (const table of ["scan_links", "scan_issues", "scan_nodes", "scan_files", "scan_results"]) {
      db.prepare(`DELETE FROM ${table}`).run();
    }
    for (const node of result.nodes) s.node?.run(nodeRow(node, result.scannedAt));
    for (const link of result.links) s.link?.run(linkRow(link));
    for (const issue of result.issues) s.issue?.run(issueRow(issue));
    for (const [path, stamp] of stamps) s.file?.run(path, stamp.modifiedAt, stamp.size);
    s.result?.run(
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
  }).immediate();
}
