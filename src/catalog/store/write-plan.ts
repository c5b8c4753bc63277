import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanResult } from "../model.js";
import { compareLinks } from "../scan/order.js";
import type { PriorScan } from "../scan/prior.js";
import { issueRow, nodeRow } from "./rows.js";

/** A scan's own facts: what `scan_results` holds (and each written node's scan time). */
export type ScanFacts = Omit<ScanResult, "nodes" | "links" | "issues">;

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
const issueKey = (issue: CatalogIssue) => JSON.stringify(issueRow(issue));

/** Whether two versions of a node give the same `scan_nodes` row (its scan time aside). */
export function sameNode(a: CatalogNode, b: CatalogNode): boolean {
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

  const { insertLinks, deleteLinkIds } = diffLinks(prior.links, prior.linkIds, result.links);
  return {
    replaceAll: false,
    deleteNodes,
    insertNodes,
    deleteLinkIds,
    insertLinks,
    ...issuePlan(prior.issues, prior.issueIds, result.issues),
    ...stampPlan(prior.stamps, stamps),
  };
}

/**
 * The issue rows to replace: issues keep their order (rules report in a meaningful one), so the
 * stored rows from the first difference on are replaced.
 */
export function issuePlan(
  before: readonly CatalogIssue[],
  ids: readonly number[],
  after: readonly CatalogIssue[],
): Pick<WritePlan, "deleteIssueIds" | "insertIssues"> {
  let same = 0;
  // `--changed` keeps the stored issue objects of untouched keys: most compare by reference.
  while (
    same < before.length &&
    same < after.length &&
    (before[same] === after[same] ||
      issueKey(before[same] as CatalogIssue) === issueKey(after[same] as CatalogIssue))
  ) {
    same += 1;
  }
  return { deleteIssueIds: ids.slice(same), insertIssues: after.slice(same) };
}

/** The stamp rows to replace: those added, moved or gone. */
export function stampPlan(
  before: ReadonlyMap<string, FileStamp>,
  after: ReadonlyMap<string, FileStamp>,
): Pick<WritePlan, "deleteFiles" | "insertFiles"> {
  const deleteFiles: string[] = [];
  const insertFiles: [string, FileStamp][] = [];
  for (const [path, stamp] of after) {
    const old = before.get(path);
    if (old && old.modifiedAt === stamp.modifiedAt && old.size === stamp.size) continue;
    if (old) deleteFiles.push(path);
    insertFiles.push([path, stamp]);
  }
  for (const path of before.keys()) if (!after.has(path)) deleteFiles.push(path);
  return { deleteFiles, insertFiles };
}

// Every column of a link's row, compared field by field (no key strings for 100,000 links).
function sameLink(a: CatalogLink, b: CatalogLink): boolean {
  return (
    a.source === b.source &&
    a.target === b.target &&
    a.kind === b.kind &&
    a.confidence === b.confidence &&
    a.sources.length === b.sources.length &&
    a.sources.every((source, i) => source === b.sources[i]) &&
    a.trigger?.originalTrigger === b.trigger?.originalTrigger &&
    a.trigger?.normalizedTrigger === b.trigger?.normalizedTrigger &&
    a.location?.line === b.location?.line &&
    a.location?.column === b.location?.column &&
    a.location?.offset === b.location?.offset &&
    a.raw === b.raw
  );
}

/**
 * The stored links to delete and the new ones to insert. Both lists are in the graph's link
 * order (`compareLinks`), so one merge pass pairs them; links the order ties on are matched
 * within their (small) run.
 */
export function diffLinks(
  before: readonly CatalogLink[],
  ids: readonly number[],
  after: readonly CatalogLink[],
): { insertLinks: CatalogLink[]; deleteLinkIds: number[] } {
  const insertLinks: CatalogLink[] = [];
  const deleteLinkIds: number[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    const a = before[i] as CatalogLink;
    const b = after[j] as CatalogLink;
    const order = compareLinks(a, b);
    if (order < 0) {
      deleteLinkIds.push(ids[i++] as number);
      continue;
    }
    if (order > 0) {
      insertLinks.push(after[j++] as CatalogLink);
      continue;
    }
    if (sameLink(a, b)) {
      i += 1;
      j += 1;
      continue;
    }
    let endBefore = i + 1;
    while (endBefore < before.length && compareLinks(before[endBefore] as CatalogLink, a) === 0)
      endBefore += 1;
    let endAfter = j + 1;
    while (endAfter < after.length && compareLinks(after[endAfter] as CatalogLink, a) === 0)
      endAfter += 1;
    const unmatched = after.slice(j, endAfter);
    for (let k = i; k < endBefore; k++) {
      const at = unmatched.findIndex((link) => sameLink(before[k] as CatalogLink, link));
      if (at >= 0) unmatched.splice(at, 1);
      else deleteLinkIds.push(ids[k] as number);
    }
    insertLinks.push(...unmatched);
    i = endBefore;
    j = endAfter;
  }
  while (i < before.length) deleteLinkIds.push(ids[i++] as number);
  while (j < after.length) insertLinks.push(after[j++] as CatalogLink);
  return { insertLinks, deleteLinkIds };
}
