import type { Insertable, Selectable } from "kysely";
import type { ScanIssuesTable, ScanLinksTable, ScanNodesTable } from "../../store/index.js";
import type { CatalogIssue, CatalogLink, CatalogNode } from "../model.js";

/** A node as a `scan_nodes` row. */
export function nodeRow(node: CatalogNode, scannedAt: number): Insertable<ScanNodesTable> {
  return {
    path: node.path,
    kind: node.kind,
    adapter: node.adapter,
    title: node.title,
    description: node.description,
    stability: node.stability,
    version: node.version,
    author: node.author,
    frontmatter_json: JSON.stringify(node.frontmatter),
    body_hash: node.bodyHash,
    frontmatter_hash: node.frontmatterHash,
    bytes_frontmatter: node.bytes.frontmatter,
    bytes_body: node.bytes.body,
    bytes_total: node.bytes.total,
    tokens_frontmatter: node.tokens?.frontmatter ?? null,
    tokens_body: node.tokens?.body ?? null,
    tokens_total: node.tokens?.total ?? null,
    links_out_count: node.linksOutCount,
    links_in_count: node.linksInCount,
    external_refs_count: node.externalRefsCount,
    scanned_at: scannedAt,
  };
}

/** A `scan_nodes` row as a node. */
export function rowNode(row: Selectable<ScanNodesTable>): CatalogNode {
  const node: CatalogNode = {
    path: row.path,
    kind: row.kind,
    adapter: row.adapter,
    title: row.title,
    description: row.description,
    stability: row.stability,
    version: row.version,
    author: row.author,
    frontmatter: JSON.parse(row.frontmatter_json) as Record<string, unknown>,
    bodyHash: row.body_hash,
    frontmatterHash: row.frontmatter_hash,
    bytes: {
      frontmatter: Number(row.bytes_frontmatter),
      body: Number(row.bytes_body),
      total: Number(row.bytes_total),
    },
    linksOutCount: Number(row.links_out_count),
    linksInCount: Number(row.links_in_count),
    externalRefsCount: Number(row.external_refs_count),
  };
  if (row.tokens_total !== null) {
    node.tokens = {
      frontmatter: Number(row.tokens_frontmatter),
      body: Number(row.tokens_body),
      total: Number(row.tokens_total),
    };
  }
  return node;
}

// Most links have one detector behind them: each such list is written once per process.
const singleSources = new Map<string, string>();
function sourcesJson(sources: readonly string[]): string {
  if (sources.length !== 1) return JSON.stringify(sources);
  const id = sources[0] as string;
  let json = singleSources.get(id);
  if (json === undefined) {
    json = JSON.stringify(sources);
    singleSources.set(id, json);
  }
  return json;
}

export function linkRow(link: CatalogLink): Insertable<ScanLinksTable> {
  return {
    source_path: link.source,
    target_path: link.target,
    kind: link.kind,
    confidence: link.confidence,
    sources_json: sourcesJson(link.sources),
    original_trigger: link.trigger?.originalTrigger ?? null,
    normalized_trigger: link.trigger?.normalizedTrigger ?? null,
    location_line: link.location?.line ?? null,
    location_column: link.location?.column ?? null,
    location_offset: link.location?.offset ?? null,
    raw: link.raw ?? null,
  };
}

export function rowLink(
  row: Selectable<ScanLinksTable>,
  parseSources: (json: string) => string[] = (json) => JSON.parse(json) as string[],
): CatalogLink {
  const link: CatalogLink = {
    source: row.source_path,
    target: row.target_path,
    kind: row.kind,
    confidence: row.confidence,
    sources: parseSources(row.sources_json),
  };
  if (row.original_trigger !== null && row.normalized_trigger !== null) {
    link.trigger = {
      originalTrigger: row.original_trigger,
      normalizedTrigger: row.normalized_trigger,
    };
  }
  if (row.location_line !== null) {
    link.location = { line: Number(row.location_line) };
    if (row.location_column !== null) link.location.column = Number(row.location_column);
    if (row.location_offset !== null) link.location.offset = Number(row.location_offset);
  }
  if (row.raw !== null) link.raw = row.raw;
  return link;
}

export function issueRow(issue: CatalogIssue): Insertable<ScanIssuesTable> {
  return {
    rule_id: issue.ruleId,
    severity: issue.severity,
    node_ids_json: JSON.stringify(issue.nodeIds),
    link_indices_json: issue.linkIndices ? JSON.stringify(issue.linkIndices) : null,
    message: issue.message,
    detail: issue.detail ?? null,
    fix_json: issue.fix ? JSON.stringify(issue.fix) : null,
    data_json: issue.data ? JSON.stringify(issue.data) : null,
  };
}

export function rowIssue(row: Selectable<ScanIssuesTable>): CatalogIssue {
  const issue: CatalogIssue = {
    ruleId: row.rule_id,
    severity: row.severity,
    nodeIds: JSON.parse(row.node_ids_json) as string[],
    message: row.message,
  };
  if (row.link_indices_json !== null)
    issue.linkIndices = JSON.parse(row.link_indices_json) as number[];
  if (row.detail !== null) issue.detail = row.detail;
  if (row.fix_json !== null) issue.fix = JSON.parse(row.fix_json) as CatalogIssue["fix"];
  if (row.data_json !== null) issue.data = JSON.parse(row.data_json) as Record<string, unknown>;
  return issue;
}
