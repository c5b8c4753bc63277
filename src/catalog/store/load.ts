import type { Store } from "../../store/index.js";
import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogNode, ScanResult } from "../model.js";
import type { PriorScan } from "../scan/prior.js";
import { rowIssue, rowLink, rowNode } from "./rows.js";

/** The stored scan as a ScanResult, or null when the scope was never scanned. */
export async function loadScan(store: Store): Promise<ScanResult | null> {
  const meta = await store.kysely
    .selectFrom("scan_results")
    .selectAll()
    .where("id", "=", 1)
    .executeTakeFirst();
  if (!meta) return null;
  const [nodeRows, linkRows, issueRows] = await Promise.all([
    store.kysely.selectFrom("scan_nodes").selectAll().orderBy("path").execute(),
    store.kysely.selectFrom("scan_links").selectAll().orderBy("id").execute(),
    store.kysely.selectFrom("scan_issues").selectAll().orderBy("id").execute(),
  ]);
  const nodes = nodeRows
    .map(rowNode)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const links = linkRows.map(rowLink);
  const issues = issueRows.map(rowIssue);
  return {
    schemaVersion: 1,
    scannedAt: Number(meta.scanned_at),
    scannedBy: meta.scanned_by_json
      ? (JSON.parse(meta.scanned_by_json) as ScanResult["scannedBy"])
      : null,
    scope: meta.scope,
    roots: JSON.parse(meta.roots_json) as string[],
    adapters: JSON.parse(meta.adapters_json) as string[],
    nodes,
    links,
    issues,
    stats: {
      filesWalked: Number(meta.files_walked_count),
      filesSkipped: Number(meta.files_skipped_count),
      nodesCount: nodes.length,
      linksCount: links.length,
      issuesCount: issues.length,
      durationMs: Number(meta.duration_ms),
    },
  };
}

/** The stored scan with its file stamps and settings, for `--changed` and `-n`. */
export async function loadPriorScan(store: Store): Promise<PriorScan | null> {
  const result = await loadScan(store);
  if (!result) return null;
  const [meta, files] = await Promise.all([
    store.kysely
      .selectFrom("scan_results")
      .select("settings_hash")
      .where("id", "=", 1)
      .executeTakeFirst(),
    store.kysely.selectFrom("scan_files").selectAll().execute(),
  ]);
  const stamps = new Map<string, FileStamp>();
  for (const row of files)
    stamps.set(row.path, { modifiedAt: Number(row.modified_at), size: Number(row.file_bytes) });
  const nodes = new Map<string, CatalogNode>();
  for (const node of result.nodes) nodes.set(node.path, node);
  return {
    nodes,
    stamps,
    links: result.links,
    issues: result.issues,
    scannedAt: result.scannedAt,
    settingsHash: meta?.settings_hash ?? null,
  };
}

/** Only the stored issues (what `keel check` prints), or null when never scanned. */
export async function loadIssues(store: Store): Promise<CatalogIssue[] | null> {
  const meta = await store.kysely
    .selectFrom("scan_results")
    .select("id")
    .where("id", "=", 1)
    .executeTakeFirst();
  if (!meta) return null;
  const rows = await store.kysely.selectFrom("scan_issues").selectAll().orderBy("id").execute();
  return rows.map(rowIssue);
}
