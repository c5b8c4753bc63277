import type BetterSqlite3 from "better-sqlite3";
import type { Selectable } from "kysely";
import type { ScanIssuesTable, ScanLinksTable, Store } from "../../store/index.js";
import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanResult, ScanStats } from "../model.js";
import { compareLinks } from "../scan/order.js";
import type { PriorScan } from "../scan/prior.js";
import { rowIssue, rowLink, rowNode } from "./rows.js";

/** The stored scan's facts without its nodes and links: what `--changed` decides on. */
export interface ScanHead {
  readonly scannedAt: number;
  readonly settingsHash: string;
  readonly result: Omit<ScanResult, "nodes" | "links" | "issues" | "stats">;
  readonly stats: ScanStats;
  readonly stamps: ReadonlyMap<string, FileStamp>;
  readonly issues: readonly CatalogIssue[];
  readonly issueIds: readonly number[];
}

/** The stored scan's head (meta row, counts, stamps, issues), or null when never scanned. */
export async function loadScanHead(store: Store): Promise<ScanHead | null> {
  const meta = await store.kysely
    .selectFrom("scan_results")
    .selectAll()
    .where("id", "=", 1)
    .executeTakeFirst();
  if (!meta) return null;
  const [files, issueRows, nodeCount, linkCount] = await Promise.all([
    // 10,000 stamps are read before every --changed scan: straight through the SQLite
    // connection when there is one.
    store.native.dialect === "sqlite"
      ? (store.native.database
          .prepare("SELECT path, modified_at, file_bytes FROM scan_files")
          .all() as { path: string; modified_at: number; file_bytes: number }[])
      : store.kysely
          .selectFrom("scan_files")
          .select(["path", "modified_at", "file_bytes"])
          .execute(),
    store.native.dialect === "sqlite"
      ? (store.native.database
          .prepare("SELECT * FROM scan_issues ORDER BY id")
          .all() as Selectable<ScanIssuesTable>[])
      : store.kysely.selectFrom("scan_issues").selectAll().orderBy("id").execute(),
    store.kysely
      .selectFrom("scan_nodes")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .executeTakeFirstOrThrow(),
    store.kysely
      .selectFrom("scan_links")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .executeTakeFirstOrThrow(),
  ]);
  const stamps = new Map<string, FileStamp>();
  for (const row of files)
    stamps.set(row.path, { modifiedAt: Number(row.modified_at), size: Number(row.file_bytes) });
  const issues = issueRows.map(rowIssue);
  return {
    scannedAt: Number(meta.scanned_at),
    settingsHash: meta.settings_hash,
    result: {
      schemaVersion: 1,
      scannedAt: Number(meta.scanned_at),
      scannedBy: meta.scanned_by_json
        ? (JSON.parse(meta.scanned_by_json) as ScanResult["scannedBy"])
        : null,
      scope: meta.scope,
      roots: JSON.parse(meta.roots_json) as string[],
      adapters: JSON.parse(meta.adapters_json) as string[],
    },
    stats: {
      filesWalked: Number(meta.files_walked_count),
      filesSkipped: Number(meta.files_skipped_count),
      nodesCount: Number(nodeCount.count),
      linksCount: Number(linkCount.count),
      issuesCount: issues.length,
      durationMs: Number(meta.duration_ms),
    },
    stamps,
    issues,
    issueIds: issueRows.map((row) => Number(row.id)),
  };
}

/** Every stored node, in path order. */
export async function loadNodes(store: Store): Promise<CatalogNode[]> {
  if (store.native.dialect === "sqlite") return sqliteNodes(store.native.database);
  const rows = await store.kysely.selectFrom("scan_nodes").selectAll().orderBy("path").execute();
  return rows.map(rowNode).sort(byPath);
}

const NODE_COLUMNS = [
  "path",
  "kind",
  "adapter",
  "title",
  "description",
  "stability",
  "version",
  "author",
  "frontmatter_json",
  "body_hash",
  "frontmatter_hash",
  "bytes_frontmatter",
  "bytes_body",
  "bytes_total",
  "tokens_frontmatter",
  "tokens_body",
  "tokens_total",
  "links_out_count",
  "links_in_count",
  "external_refs_count",
] as const;

const byPath = (a: CatalogNode, b: CatalogNode) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

// Node rows as arrays (better-sqlite3's row objects cost several times more), in path order.
function sqliteNodes(
  db: BetterSqlite3.Database,
  where = "",
  params: readonly string[] = [],
): CatalogNode[] {
  const rows = db
    .prepare(`SELECT ${NODE_COLUMNS.join(", ")} FROM scan_nodes ${where}`)
    .raw(true)
    .all(...params) as unknown[][];
  const nodes = rows.map((r) => {
    const node: CatalogNode = {
      path: r[0] as string,
      kind: r[1] as CatalogNode["kind"],
      adapter: r[2] as string,
      title: r[3] as string | null,
      description: r[4] as string | null,
      stability: r[5] as CatalogNode["stability"],
      version: r[6] as string | null,
      author: r[7] as string | null,
      frontmatter: JSON.parse(r[8] as string) as Record<string, unknown>,
      bodyHash: r[9] as string,
      frontmatterHash: r[10] as string,
      bytes: { frontmatter: r[11] as number, body: r[12] as number, total: r[13] as number },
      linksOutCount: r[17] as number,
      linksInCount: r[18] as number,
      externalRefsCount: r[19] as number,
    };
    if (r[16] !== null)
      node.tokens = { frontmatter: r[14] as number, body: r[15] as number, total: r[16] as number };
    return node;
  });
  return nodes.sort(byPath);
}

const NODE_CHUNK = 500;

/**
 * The stored nodes at these paths (those that exist), in path order: what `--changed` reads of
 * the node table instead of all of it.
 */
export async function loadNodesAt(store: Store, paths: Iterable<string>): Promise<CatalogNode[]> {
  const all = [...new Set(paths)];
  const nodes: CatalogNode[] = [];
  for (let start = 0; start < all.length; start += NODE_CHUNK) {
    const chunk = all.slice(start, start + NODE_CHUNK);
    if (store.native.dialect === "sqlite") {
      const where = `WHERE path IN (${chunk.map(() => "?").join(", ")})`;
      nodes.push(...sqliteNodes(store.native.database, where, chunk));
    } else {
      const rows = await store.kysely
        .selectFrom("scan_nodes")
        .selectAll()
        .where("path", "in", chunk)
        .execute();
      nodes.push(...rows.map(rowNode));
    }
  }
  return nodes.sort(byPath);
}

/**
 * The stored nodes whose frontmatter JSON mentions one of these keys (as a key or a value: a
 * superset the caller narrows), in path order. Found by a text match on `frontmatter_json`.
 */
export async function loadNodesMentioning(
  store: Store,
  keys: readonly string[],
): Promise<CatalogNode[]> {
  if (keys.length === 0) return [];
  // The key as JSON writes it, with LIKE's wildcards escaped.
  const patterns = keys.map((key) => `%${JSON.stringify(key).replace(/[\\%_]/g, "\\$&")}%`);
  if (store.native.dialect === "sqlite") {
    const where = `WHERE ${patterns.map(() => "frontmatter_json LIKE ? ESCAPE '\\'").join(" OR ")}`;
    return sqliteNodes(store.native.database, where, patterns);
  }
  const rows = await store.kysely
    .selectFrom("scan_nodes")
    .selectAll()
    .where((eb) => eb.or(patterns.map((pattern) => eb("frontmatter_json", "like", pattern))))
    .execute();
  return rows.map(rowNode).sort(byPath);
}

/**
 * Each stored node's path and title, without the rest of its row: the title is the node's
 * `name` whenever it has one, so a name lookup narrows to a few nodes before reading them.
 */
export async function loadNodeTitles(store: Store): Promise<[string, string | null][]> {
  if (store.native.dialect === "sqlite") {
    return store.native.database.prepare("SELECT path, title FROM scan_nodes").raw(true).all() as [
      string,
      string | null,
    ][];
  }
  const rows = await store.kysely.selectFrom("scan_nodes").select(["path", "title"]).execute();
  return rows.map((row) => [row.path, row.title]);
}

const LINK_COLUMNS = [
  "id",
  "source_path",
  "target_path",
  "kind",
  "confidence",
  "sources_json",
  "original_trigger",
  "normalized_trigger",
  "location_line",
  "location_column",
  "location_offset",
  "raw",
] as const;

// 100,000 link rows as arrays (one object less per row than better-sqlite3's row objects),
// then as rows of one shape.
export function sqliteLinkRows(
  db: BetterSqlite3.Database,
  where = "",
  params: readonly string[] = [],
): Selectable<ScanLinksTable>[] {
  const arrays = db
    .prepare(`SELECT ${LINK_COLUMNS.join(", ")} FROM scan_links ${where} ORDER BY id`)
    .raw(true)
    .all(...params) as unknown[][];
  return arrays.map(
    (r) =>
      ({
        id: r[0],
        source_path: r[1],
        target_path: r[2],
        kind: r[3],
        confidence: r[4],
        sources_json: r[5],
        original_trigger: r[6],
        normalized_trigger: r[7],
        location_line: r[8],
        location_column: r[9],
        location_offset: r[10],
        raw: r[11],
      }) as Selectable<ScanLinksTable>,
  );
}

// Links in the graph's one order (see compareLinks), with their row ids alongside. A full scan
// stores them in that order, so the sort is skipped when the rows already are.
async function loadLinks(store: Store): Promise<{ links: CatalogLink[]; ids: number[] }> {
  const rows =
    store.native.dialect === "sqlite"
      ? sqliteLinkRows(store.native.database)
      : await store.kysely.selectFrom("scan_links").selectAll().orderBy("id").execute();
  // Most links share one of a few `sources` lists: parse each distinct one once (the links
  // share the array; whoever merges into a link copies it first, see mergeLinks).
  const parsed = new Map<string, string[]>();
  const sourcesOf = (json: string): string[] => {
    let found = parsed.get(json);
    if (!found) {
      found = JSON.parse(json) as string[];
      parsed.set(json, found);
    }
    return found;
  };
  const links = rows.map((row) => rowLink(row, sourcesOf));
  const ids = rows.map((row) => Number(row.id));
  let sorted = true;
  for (let i = 1; i < links.length && sorted; i++)
    sorted = compareLinks(links[i - 1] as CatalogLink, links[i] as CatalogLink) <= 0;
  if (sorted) return { links, ids };
  const order = links.map((_, i) => i);
  order.sort(
    (a, b) =>
      compareLinks(links[a] as CatalogLink, links[b] as CatalogLink) ||
      (ids[a] as number) - (ids[b] as number),
  );
  return {
    links: order.map((i) => links[i] as CatalogLink),
    ids: order.map((i) => ids[i] as number),
  };
}

/** The stored scan as a ScanResult, or null when the scope was never scanned. */
export async function loadScan(store: Store): Promise<ScanResult | null> {
  const head = await loadScanHead(store);
  if (!head) return null;
  const [nodes, { links }] = await Promise.all([loadNodes(store), loadLinks(store)]);
  return {
    ...head.result,
    nodes,
    links,
    issues: [...head.issues],
    stats: { ...head.stats, nodesCount: nodes.length, linksCount: links.length },
  };
}

/**
 * The stored scan with its file stamps, settings and row ids, for `--changed` and `-n` (and
 * for writing only what they change). `head` saves reading the head twice.
 */
export async function loadPriorScan(
  store: Store,
  head?: ScanHead | null,
): Promise<PriorScan | null> {
  const known = head === undefined ? await loadScanHead(store) : head;
  if (!known) return null;
  const [nodeList, { links, ids }] = await Promise.all([loadNodes(store), loadLinks(store)]);
  const nodes = new Map<string, CatalogNode>();
  for (const node of nodeList) nodes.set(node.path, node);
  return {
    nodes,
    stamps: known.stamps,
    links,
    linkIds: ids,
    issues: known.issues,
    issueIds: known.issueIds,
    scannedAt: known.scannedAt,
    settingsHash: known.settingsHash,
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

/**
 * Records a `--changed` scan that found nothing to re-read: only `scan_results` (when and how
 * long) changes, in one statement; no node, link, issue or stamp row is touched.
 */
export async function touchScan(
  store: Store,
  head: ScanHead,
  scannedAt: number,
  stats: ScanStats,
): Promise<boolean> {
  const updated = await store.kysely
    .updateTable("scan_results")
    .set({
      scanned_at: scannedAt,
      duration_ms: stats.durationMs,
      files_walked_count: stats.filesWalked,
    })
    .where("id", "=", 1)
    .where("scanned_at", "=", head.scannedAt)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
