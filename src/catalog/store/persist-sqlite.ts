import type BetterSqlite3 from "better-sqlite3";
import { issueRow, linkRow, nodeRow } from "./rows.js";
import type { ScanFacts, WritePlan } from "./write-plan.js";

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
      deleteNode: db.prepare("DELETE FROM scan_nodes WHERE path = ?"),
      deleteLink: db.prepare("DELETE FROM scan_links WHERE id = ?"),
      deleteIssue: db.prepare("DELETE FROM scan_issues WHERE id = ?"),
      deleteFile: db.prepare("DELETE FROM scan_files WHERE path = ?"),
      result: db.prepare(
        "INSERT INTO scan_results (id, scanned_at, scope, roots_json, adapters_json, scanned_by_json, files_walked_count, files_skipped_count, duration_ms, settings_hash) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
    };
    statements.set(db, found);
  }
  return found;
}

/** The SQLite fast path of `persistScan`: the plan's rows, one IMMEDIATE transaction. */
export function persistScanSqlite(
  db: BetterSqlite3.Database,
  result: ScanFacts,
  planFor: (storedScannedAt: number | null) => WritePlan | null,
  settingsHash: string,
): boolean {
  const s = prepared(db) as Record<string, BetterSqlite3.Statement>;
  const run = (name: string, ...args: unknown[]) => s[name]?.run(...args);
  return db
    .transaction(() => {
      const stored = db.prepare("SELECT scanned_at FROM scan_results WHERE id = 1").pluck().get();
      const plan = planFor(stored === undefined ? null : Number(stored));
      if (!plan) return false;
      const tables = plan.replaceAll
        ? ["scan_links", "scan_issues", "scan_nodes", "scan_files", "scan_results"]
        : ["scan_results"];
      for (const table of tables) db.prepare(`DELETE FROM ${table}`).run();
      for (const id of plan.deleteLinkIds) run("deleteLink", id);
      for (const id of plan.deleteIssueIds) run("deleteIssue", id);
      for (const path of plan.deleteNodes) run("deleteNode", path);
      for (const path of plan.deleteFiles) run("deleteFile", path);
      for (const node of plan.insertNodes) run("node", nodeRow(node, result.scannedAt));
      for (const link of plan.insertLinks) run("link", linkRow(link));
      for (const issue of plan.insertIssues) run("issue", issueRow(issue));
      for (const [path, stamp] of plan.insertFiles) run("file", path, stamp.modifiedAt, stamp.size);
      run(
        "result",
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
}
