import type { CatalogLink, CatalogNode, Confidence } from "../model.js";
import { compareLinks } from "./order.js";

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };
// A target with a URL scheme (`https:`, `mailto:`) is outside the graph. Two letters at least, so
// a Windows drive (`C:`) is not taken for one.
const SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/** Whether a link leaves the graph (its target is a URL). */
export function isExternal(link: CatalogLink): boolean {
  return SCHEME.test(link.target);
}

/**
 * Merges links that say the same thing (same source, target, kind and trigger) found by several
 * detectors into one whose `sources` lists them all, at the highest confidence given.
 */
export function mergeLinks(links: readonly CatalogLink[]): CatalogLink[] {
  const merged = new Map<string, CatalogLink>();
  // Most links are said once: they are kept as they are, and copied only when a second
  // detector says the same (the copy is what gets merged into, never the caller's link).
  const copied = new Set<CatalogLink>();
  for (const link of links) {
    const key = `${link.source}\u0000${link.target}\u0000${link.kind}\u0000${link.trigger?.normalizedTrigger ?? ""}`;
    let existing = merged.get(key);
    if (!existing) {
      merged.set(key, link);
      continue;
    }
    if (!copied.has(existing)) {
      existing = { ...existing, sources: [...existing.sources] };
      copied.add(existing);
      merged.set(key, existing);
    }
    for (const source of link.sources) {
      if (!existing.sources.includes(source)) existing.sources.push(source);
    }
    if (RANK[link.confidence] > RANK[existing.confidence]) existing.confidence = link.confidence;
  }
  return [...merged.values()];
}

const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The graph's links: `mergeLinks(links).sort(compareLinks)`, computed per source. Links that
 * merge share their source, and the order compares sources first, so each source's few links
 * are merged and sorted on their own and the sources put in order: no key string per link and
 * no sort of the whole list (a cold scan has ~100,000 links).
 */
export function graphLinks(links: readonly CatalogLink[]): CatalogLink[] {
  const bySource = new Map<string, CatalogLink[]>();
  for (const link of links) {
    const list = bySource.get(link.source);
    if (list) list.push(link);
    else bySource.set(link.source, [link]);
  }
  const sources = [...bySource.keys()].sort(byUnits);
  const graph: CatalogLink[] = [];
  for (const source of sources) {
    const list = bySource.get(source) as CatalogLink[];
    if (list.length === 1) {
      graph.push(list[0] as CatalogLink);
      continue;
    }
    for (const link of mergeLinks(list).sort(compareLinks)) graph.push(link);
  }
  return graph;
}

/** Sets each node's in/out link counts from the graph's links (targets resolved verbatim). */
export function countLinks(nodes: readonly CatalogNode[], links: readonly CatalogLink[]): void {
  const byPath = new Map<string, CatalogNode>();
  for (const node of nodes) {
    node.linksOutCount = 0;
    node.linksInCount = 0;
    byPath.set(node.path, node);
  }
  for (const link of links) {
    const source = byPath.get(link.source);
    if (source) source.linksOutCount += 1;
    const target = byPath.get(link.target);
    if (target) target.linksInCount += 1;
  }
}
