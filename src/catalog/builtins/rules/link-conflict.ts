import { compareCodePoints } from "../../../core/index.js";
import type { Rule } from "../../extensions.js";
import type { CatalogIssue, CatalogLink, Confidence, LinkKind } from "../../model.js";
import { compareLinks } from "../../scan/order.js";

const pairKey = (source: string, target: string) => `${source}\u0000${target}`;

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The links of each (source, target) pair linked with more than one kind. In the graph's order
 * (source, then target: what a scan gives rules) a pair's links are adjacent and one pass finds
 * them; links in another order are grouped by key.
 */
function conflictingPairs(links: readonly CatalogLink[]): Map<string, CatalogLink[]> {
  const pairs = new Map<string, CatalogLink[]>();
  let ordered = true;
  for (let i = 1; i < links.length && ordered; i++) {
    const a = links[i - 1] as CatalogLink;
    const b = links[i] as CatalogLink;
    ordered = (byUnits(a.source, b.source) || byUnits(a.target, b.target)) <= 0;
  }
  if (ordered) {
    for (let start = 0; start < links.length; ) {
      const first = links[start] as CatalogLink;
      let end = start + 1;
      let mixed = false;
      for (; end < links.length; end++) {
        const link = links[end] as CatalogLink;
        if (link.source !== first.source || link.target !== first.target) break;
        if (link.kind !== first.kind) mixed = true;
      }
      if (mixed) pairs.set(pairKey(first.source, first.target), links.slice(start, end));
      start = end;
    }
    return pairs;
  }
  // Most pairs carry one link (or one kind): remember the first link per pair and open a
  // group only when a second one of another kind turns up.
  const first = new Map<string, CatalogLink>();
  for (const link of links) {
    const key = pairKey(link.source, link.target);
    const seen = first.get(key);
    if (!seen) {
      first.set(key, link);
      continue;
    }
    const list = pairs.get(key);
    if (list) list.push(link);
    else if (seen.kind !== link.kind) pairs.set(key, [seen, link]);
  }
  // A pair whose later links repeated the first kind before another kind appeared: collect all.
  for (const key of pairs.keys()) pairs.set(key, []);
  for (const link of links) pairs.get(pairKey(link.source, link.target))?.push(link);
  return pairs;
}

/**
 * Links between the same two nodes that disagree on their kind (one says `supersedes`, another
 * `references`) are a warning naming each kind with the detectors behind it.
 */
export const linkConflictRule: Rule = {
  kind: "rule",
  id: "link-conflict",
  version: "1.0.0",
  description: "The same source and target linked with different kinds: warn.",
  evaluate({ links }) {
    const pairs = conflictingPairs(links);
    const issues: CatalogIssue[] = [];
    for (const group of pairs.values()) {
      const variants = new Map<
        LinkKind,
        { kind: LinkKind; sources: string[]; confidence: Confidence }
      >();
      for (const link of group) {
        const variant = variants.get(link.kind);
        if (!variant) {
          variants.set(link.kind, {
            kind: link.kind,
            sources: [...link.sources],
            confidence: link.confidence,
          });
          continue;
        }
        for (const source of link.sources)
          if (!variant.sources.includes(source)) variant.sources.push(source);
        if (RANK[link.confidence] > RANK[variant.confidence]) variant.confidence = link.confidence;
      }
      if (variants.size < 2) continue;
      const first = group[0] as CatalogLink;
      const sorted = [...variants.values()]
        .map((v) => ({ ...v, sources: v.sources.sort(compareCodePoints) }))
        .sort((a, b) => compareCodePoints(a.kind, b.kind));
      issues.push({
        ruleId: "link-conflict",
        severity: "warn",
        nodeIds: [first.source, first.target],
        message: `${first.source} → ${first.target} is linked as ${sorted.map((v) => v.kind).join(" and ")}; keep one.`,
        data: { source: first.source, target: first.target, variants: sorted },
      });
    }
    return issues;
  },
  // An issue is about one (source, target) pair: only pairs that gained or lost a link change.
  incremental: {
    key: (issue) => pairKey(issue.nodeIds[0] ?? "", issue.nodeIds[1] ?? ""),
    async reevaluate(change, view) {
      const keys = new Set<string>();
      const sources = new Set<string>();
      for (const link of [...change.removedLinks, ...change.addedLinks]) {
        keys.add(pairKey(link.source, link.target));
        sources.add(link.source);
      }
      const links = (await view.linksFrom(sources))
        .filter((link) => keys.has(pairKey(link.source, link.target)))
        .sort(compareLinks);
      const issues = linkConflictRule.evaluate({
        nodes: [],
        links,
        strict: view.strict,
        frontmatter: view.frontmatter,
      });
      return { keys, issues };
    },
  },
};
