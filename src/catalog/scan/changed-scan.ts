import { compareCodePoints } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { Detector, FrontmatterDiagnostic, GraphChange } from "../extensions.js";
import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanStats } from "../model.js";
import type { ExtensionRegistry } from "../registry.js";
import { countLinksAt, loadLinksWhere } from "../store/link-lookup.js";
import { loadNodes, type ScanHead } from "../store/load.js";
import { writeScanPlan } from "../store/persist.js";
import {
  diffLinks,
  issuePlan,
  type ScanFacts,
  sameNode,
  stampPlan,
  type WritePlan,
} from "../store/write-plan.js";
import { spliceIssues } from "./changed-rules.js";
import { graphView } from "./graph-view.js";
import { mergeLinks } from "./links.js";
import type { Listing } from "./listing.js";
import { compareLinks } from "./order.js";
import type { PhaseClock } from "./phases.js";
import { collect, detectNode, diagnoseFrontmatter, readNode, unreadable } from "./read-node.js";
import { tokenPool } from "./token-pool.js";

export interface ChangedScanInput {
  readonly registry: ExtensionRegistry;
  readonly head: ScanHead;
  readonly listing: Listing;
  readonly probed: ReadonlyMap<string, FileStamp | null>;
  readonly facts: Omit<ScanFacts, "stats">;
  readonly settingsHash: string;
  readonly tokenize: boolean;
  readonly strict: boolean;
  readonly maxFileBytes: number;
  readonly clock: PhaseClock;
  readonly now: () => number;
  readonly diagnostic: (message: string) => void;
}

export interface ChangedScan {
  readonly stats: ScanStats;
  readonly issues: readonly CatalogIssue[];
  /** Nodes kept without running detectors on them. */
  readonly reused: number;
}

/**
 * `keel scan --changed` in proportion to what changed: the stored scan's nodes are loaded (not
 * its links), changed files are read and detected, the links of the sources they touch are
 * replaced, and each rule re-evaluates only the keys the change touches (IncrementalRule),
 * reading other links through the stored scan's indexes. Writes the delta in one transaction.
 * Null when it cannot: a rule without an incremental form, or another scan stored meanwhile
 * (the caller then scans the whole graph).
 */
export async function changedScan(
  store: Store,
  input: ChangedScanInput,
): Promise<ChangedScan | null> {
  const { registry, head, listing, probed, clock, diagnostic } = input;
  const rules = registry.rules();
  if (!rules.every((rule) => rule.incremental)) return null;
  const detectors = registry.detectors();
  const frontmatterDetectors = detectors.filter((d) => d.scope === "frontmatter");
  const bodyDetectorIds = new Set(
    detectors.filter((d) => d.scope !== "frontmatter").map((d) => d.id),
  );
  const scannedAt = input.facts.scannedAt;

  const priorList = await clock.measureAsync("load", () => loadNodes(store));
  const prior = new Map(priorList.map((node) => [node.path, node]));
  const priorUnreadable = new Map<string, CatalogIssue>();
  for (const issue of head.issues) {
    const path = issue.nodeIds[0];
    if (issue.ruleId === "unreadable-file" && path !== undefined) priorUnreadable.set(path, issue);
  }

  // Files: kept by stamp, re-read, kept by hash, or changed.
  const current = new Map<string, CatalogNode>();
  const fresh = new Map<string, CatalogLink[]>();
  const changed = new Set<string>();
  const frontmatter = new Map<string, FrontmatterDiagnostic>();
  const stamps = new Map(head.stamps);
  const listed = new Set<string>();
  const kernelIssues: CatalogIssue[] = [];
  let skipped = listing.skipped;
  const pool = input.tokenize ? await tokenPool(0) : null;
  const counted: Promise<void>[] = [];
  for (const file of listing.files) {
    listed.add(file.path);
    const before = prior.get(file.path);
    const stamp = probed.get(file.path) ?? null;
    const priorStamp = head.stamps.get(file.path);
    if (
      stamp &&
      priorStamp &&
      stamp.modifiedAt === priorStamp.modifiedAt &&
      stamp.size === priorStamp.size
    ) {
      if (before && before.kind === file.kind && before.adapter === file.adapter) {
        current.set(file.path, before);
        continue;
      }
      const kept = before ? undefined : priorUnreadable.get(file.path);
      if (kept) {
        skipped += 1;
        kernelIssues.push(kept);
        continue;
      }
    }
    const read = clock.measure("parse", () => readNode(file, input.maxFileBytes, scannedAt));
    if (!read.ok) {
      skipped += 1;
      kernelIssues.push(read.issue);
      if (read.stamp) stamps.set(file.path, read.stamp);
      else stamps.delete(file.path);
      continue;
    }
    const { node, split } = read;
    stamps.set(file.path, read.stamp);
    if (
      before &&
      before.bodyHash === node.bodyHash &&
      before.frontmatterHash === node.frontmatterHash &&
      before.kind === node.kind &&
      before.adapter === node.adapter
    ) {
      current.set(file.path, before);
      continue;
    }
    changed.add(file.path);
    clock.measure("parse", () => {
      const found = diagnoseFrontmatter(node, split, read.text);
      if (found) frontmatter.set(file.path, found);
    });
    if (pool) {
      counted.push(
        pool.count(split.frontmatterRaw, split.body).then(([fm, body]) => {
          node.tokens = { frontmatter: fm, body, total: fm + body };
        }),
      );
    }
    const own: CatalogLink[] = [];
    const external = new Map<string, number>();
    clock.measure("detect", () => detectNode(detectors, node, split, own, external, diagnostic));
    node.externalRefsCount = external.get(node.path) ?? 0;
    current.set(file.path, node);
    fresh.set(file.path, own);
  }
  for (const path of prior.keys()) if (!current.has(path)) changed.add(path);
  for (const path of head.stamps.keys()) if (!listed.has(path)) stamps.delete(path);
  for (const problem of listing.problems)
    kernelIssues.push(unreadable(problem.path, problem.reason, problem.message));
  if (pool) {
    await clock.measureAsync("tokenize", async () => {
      await pool.close();
      await Promise.all(counted);
    });
  }

  // Links a node's frontmatter draws from another source (`supersededBy`): every node's, now;
  // a changed node's, before. Sources whose links are recomputed: the changed nodes and every
  // source a changed node draws a link from, before or now.
  const linksOf = (node: CatalogNode): CatalogLink[] => {
    const links: CatalogLink[] = [];
    for (const detector of frontmatterDetectors) runFrontmatter(detector, node, links, diagnostic);
    return links;
  };
  const drawn = new Map<string, CatalogLink[]>();
  const recompute = new Set(changed);
  clock.measure("detect", () => {
    for (const node of current.values()) {
      const links = fresh.get(node.path) ?? linksOf(node);
      for (const link of links) {
        if (link.source === node.path) continue;
        const list = drawn.get(link.source);
        if (list) list.push(link);
        else drawn.set(link.source, [link]);
        if (changed.has(node.path)) recompute.add(link.source);
      }
    }
    for (const path of changed) {
      const before = prior.get(path);
      if (!before) continue;
      for (const link of linksOf(before)) if (link.source !== path) recompute.add(link.source);
    }
  });

  const stored = await clock.measureAsync("load", () =>
    loadLinksWhere(store, "source_path", recompute),
  );
  stored.sort((a, b) => compareLinks(a.link, b.link) || a.id - b.id);
  const storedBySource = new Map<string, CatalogLink[]>();
  for (const { link } of stored) {
    const list = storedBySource.get(link.source);
    if (list) list.push(link);
    else storedBySource.set(link.source, [link]);
  }
  const recomputed = new Map<string, CatalogLink[]>();
  const newLinks: CatalogLink[] = [];
  clock.measure("detect", () => {
    for (const source of recompute) {
      const links: CatalogLink[] = [];
      const node = current.get(source);
      const own = fresh.get(source);
      if (own) {
        for (const link of own) if (link.source === source) links.push(link);
      } else if (node) {
        // A kept node keeps what its body detectors found; its frontmatter is detected again.
        for (const link of storedBySource.get(source) ?? []) {
          if (link.sources.every((id) => bodyDetectorIds.has(id))) links.push(link);
          else {
            const sources = link.sources.filter((id) => bodyDetectorIds.has(id));
            if (sources.length > 0) links.push({ ...link, sources });
          }
        }
        for (const link of linksOf(node)) if (link.source === source) links.push(link);
      }
      links.push(...(drawn.get(source) ?? []));
      const merged = mergeLinks(links).sort(compareLinks);
      recomputed.set(source, merged);
      newLinks.push(...merged);
    }
    newLinks.sort(compareLinks);
  });
  const { insertLinks, deleteLinkIds } = diffLinks(
    stored.map((s) => s.link),
    stored.map((s) => s.id),
    newLinks,
  );
  const deleted = new Set(deleteLinkIds);
  const removedLinks = stored.filter((s) => deleted.has(s.id)).map((s) => s.link);

  // Link counts: the stored counts, moved by the links gone and added.
  const added = [...current.keys()].filter((path) => !prior.has(path));
  const base = await clock.measureAsync("load", () => countLinksAt(store, added));
  const outCount = new Map<string, number>();
  const inCount = new Map<string, number>();
  const move = (links: readonly CatalogLink[], by: number) => {
    for (const link of links) {
      outCount.set(link.source, (outCount.get(link.source) ?? 0) + by);
      inCount.set(link.target, (inCount.get(link.target) ?? 0) + by);
    }
  };
  move(removedLinks, -1);
  move(insertLinks, 1);
  const recount = new Set([...changed, ...outCount.keys(), ...inCount.keys()]);
  for (const path of recount) {
    const node = current.get(path);
    if (!node) continue;
    const before = prior.get(path);
    const linksOutCount =
      (before ? before.linksOutCount : (base.out.get(path) ?? 0)) + (outCount.get(path) ?? 0);
    const linksInCount =
      (before ? before.linksInCount : (base.in.get(path) ?? 0)) + (inCount.get(path) ?? 0);
    if (fresh.has(path)) Object.assign(node, { linksOutCount, linksInCount });
    else if (node.linksOutCount !== linksOutCount || node.linksInCount !== linksInCount)
      current.set(path, { ...node, linksOutCount, linksInCount });
  }

  // Rules, over the changed keys only.
  const nodes = [...current.values()].sort((a, b) => compareCodePoints(a.path, b.path));
  const change: GraphChange = {
    nodes: changed,
    before: (path) => (changed.has(path) ? prior.get(path) : undefined),
    removedLinks,
    addedLinks: insertLinks,
  };
  const view = graphView(store, nodes, current, recomputed, input.strict, frontmatter);
  const issues = await clock.measureAsync("rules", () =>
    spliceIssues(rules, head.issues, change, view, diagnostic),
  );
  issues.push(...kernelIssues);

  const deleteNodes: string[] = [];
  const insertNodes: CatalogNode[] = [];
  for (const path of recount) {
    const node = current.get(path);
    const before = prior.get(path);
    if (node && before && sameNode(before, node)) continue;
    if (before) deleteNodes.push(path);
    if (node) insertNodes.push(node);
  }
  const plan: WritePlan = {
    replaceAll: false,
    deleteNodes,
    insertNodes,
    deleteLinkIds,
    insertLinks,
    ...issuePlan(head.issues, head.issueIds, issues),
    ...stampPlan(head.stamps, stamps),
  };
  const stats: ScanStats = {
    filesWalked: listing.walked,
    filesSkipped: skipped,
    nodesCount: nodes.length,
    linksCount: head.stats.linksCount - deleteLinkIds.length + insertLinks.length,
    issuesCount: issues.length,
    durationMs: Math.max(0, Math.round(input.now() - scannedAt)),
  };
  const start = performance.now();
  const written = await writeScanPlan(store, { ...input.facts, stats }, input.settingsHash, (at) =>
    at === head.scannedAt ? plan : null,
  );
  clock.timings.write += performance.now() - start;
  if (!written) return null;
  return { stats, issues, reused: nodes.length - fresh.size };
}

function runFrontmatter(
  detector: Detector,
  node: CatalogNode,
  links: CatalogLink[],
  diagnostic: (message: string) => void,
): void {
  const emitted = detector.detect({ node, body: "", frontmatter: node.frontmatter });
  // External links are already in the node's count.
  collect(detector, emitted, node, links, new Map(), diagnostic);
}
