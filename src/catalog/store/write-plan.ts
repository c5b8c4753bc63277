import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanResult } from "../model.js";
import type { PriorScan } from "../scan/prior.js";
import { issueRow, linkRow, nodeRow } from "./rows.js";

/**
 * The rows a scan changes in `scan_*`. A full plan replaces every row; a delta plan (after
 * `--changed` or `-n`, against the stored scan it started from) deletes and inserts only the
 * rows that differ, so unchanged nodes, links and stamps are not touched.
 */
export interface WritePlan {
  readonly replaceAll: boolean;
  readonly deleteNodes: readonly string[];
  readonly insertNodes: readonly CatalogNode[];
  readonly deleteLinkIds: readonly number[];
  readonly insertLinks: readonly CatalogLink[];
  readonly deleteIssueIds: readonly number[];
  readonly insertIssues: readonly CatalogIssue[];
  readonly deleteFiles: readonly string[];
  readonly insertFiles: readonly (readonly [string, FileStamp])[];
}

/** Replace everything (a full scan, or no stored scan to compare with). */
export function fullPlan(result: ScanResult, stamps: ReadonlyMap<string, FileStamp>): WritePlan {
  return {
    replaceAll: true,
    deleteNodes: [],
    insertNodes: result.nodes,
    deleteLinkIds: [],
    insertLinks: result.links,
    deleteIssueIds: [],
    insertIssues: result.issues,
    deleteFiles: [],
    insertFiles: [...stamps],
  };
}

// A row's identity for comparison: every column but the row id (and a node's scan time).
function nodeKey(node: CatalogNode): string {
  const { scanned_at: _scannedAt, ...columns } = nodeRow(node, 0);
  return JSON.stringify(columns);
}
const linkKey = (link: CatalogLink) => JSON.stringify(linkRow(link));
const issueKey = (issue: CatalogIssue) => JSON.stringify(issueRow(issue));

function sameNode(a: CatalogNode, b: CatalogNode): boolean {
  if (a === b) return true;
  // Reused nodes share their frontmatter object with the prior scan: compare the rest cheaply.
  if (a.frontmatter === b.frontmatter) {
    return (
      a.bodyHash === b.bodyHash &&
      a.frontmatterHash === b.frontmatterHash &&
      a.kind === b.kind &&
      a.adapter === b.adapter &&
      a.title === b.title &&
      a.description === b.description &&
      a.stability === b.stability &&
      a.version === b.version &&
      a.author === b.author &&
      a.bytes.total === b.bytes.total &&
      a.bytes.body === b.bytes.body &&
      a.tokens?.total === b.tokens?.total &&
      a.tokens?.body === b.tokens?.body &&
      a.linksOutCount === b.linksOutCount &&
      a.linksInCount === b.linksInCount &&
      a.externalRefsCount === b.externalRefsCount
    );
  }
  return nodeKey(a) === nodeKey(b);
}

/**
 * The delta from the stored scan `prior` (loaded with its row ids) to `result`. Issues keep
 * their order (rules report in a meaningful one): the stored rows from the first difference on
 * are replaced.
 */
export function deltaPlan(
  prior: PriorScan,
  result: ScanResult,
  stamps: ReadonlyMap<string, FileStamp>,
): WritePlan {
  if (!prior.linkIds || !prior.issueIds) return fullPlan(result, stamps);
  const deleteNodes: string[] = [];
  const insertNodes: CatalogNode[] = [];
  const present = new Set<string>();
  for (const node of result.nodes) {
    present.add(node.path);
    const before = prior.nodes.get(node.path);
    if (before && sameNode(before, node)) continue;
    if (before) deleteNodes.push(node.path);
    insertNodes.push(node);
  }
  for (const path of prior.nodes.keys()) if (!present.has(path)) deleteNodes.push(path);

  const storedLinks = new Map<string, number[]>();
  prior.links.forEach((link, index) => {
    const key = linkKey(link);
    const ids = storedLinks.get(key);
    const id = prior.linkIds?.[index] as number;
    if (ids) ids.push(id);
    else storedLinks.set(key, [id]);
  });
  const insertLinks: CatalogLink[] = [];
  for (const link of result.links) {
    const ids = storedLinks.get(linkKey(link));
    if (ids && ids.length > 0) ids.pop();
    else insertLinks.push(link);
  }
  const deleteLinkIds = [...storedLinks.values()].flat();

  let same = 0;
  while (
    same < prior.issues.length &&
    same < result.issues.length &&
    issueKey(prior.issues[same] as CatalogIssue) === issueKey(result.issues[same] as CatalogIssue)
  ) {
    same += 1;
  }

  const deleteFiles: string[] = [];
  const insertFiles: [string, FileStamp][] = [];
  for (const [path, stamp] of stamps) {
    const before = prior.stamps.get(path);
    if (before && before.modifiedAt === stamp.modifiedAt && before.size === stamp.size) continue;
    if (before) deleteFiles.push(path);
    insertFiles.push([path, stamp]);
  }
  for (const path of prior.stamps.keys()) if (!stamps.has(path)) deleteFiles.push(path);

  return {
    replaceAll: false,
    deleteNodes,
    insertNodes,
    deleteLinkIds,
    insertLinks,
    deleteIssueIds: prior.issueIds.slice(same),
    insertIssues: result.issues.slice(same),
    deleteFiles,
    insertFiles,
  };
}
