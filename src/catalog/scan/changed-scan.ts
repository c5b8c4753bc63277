import type { Store } from "../../store/index.js";
import type { Detector, FrontmatterDiagnostic, GraphChange } from "../extensions.js";
import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanStats } from "../model.js";
import type { ExtensionRegistry } from "../registry.js";
import { countLinksAt, loadLinksWhere } from "../store/link-lookup.js";
import { loadNodes, loadNodesAt, loadNodesMentioning, type ScanHead } from "../store/load.js";
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
import type { ClaimedFile, Listing } from "./listing.js";
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
 * `keel scan --changed` in proportion to what changed: of the stored scan it reads the nodes of
 * moved files (not every node, nor the links), reads and detects the changed files, replaces the
 * links of the sources they touch, and lets each rule re-evaluate only the keys the change
 * touches (IncrementalRule), reading other nodes and links through the stored scan's indexes.
 * Writes the delta in one transaction. Null when it cannot: a rule without an incremental form,
 * or another scan stored meanwhile (the caller then scans the whole graph).
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
  const priorUnreadable = new Map<string, CatalogIssue>();
  for (const issue of head.issues) {
    const path = issue.nodeIds[0];
    if (issue.ruleId === "unreadable-file" && path !== undefined) priorUnreadable.set(path, issue);
  }

  // Files kept by stamp are not looked at again (a stamp is stored for each node and each file
  // that was not text); the others are read, and so are the stored nodes of the files read or gone.
  const listed = new Set<string>();
  const kernelIssues: CatalogIssue[] = [];
  const toRead: ClaimedFile[] = [];
  let skipped = listing.skipped;
  for (const file of listing.files) {
    listed.add(file.path);
    const stamp = probed.get(file.path) ?? null;
    const priorStamp = head.stamps.get(file.path);
    if (
      stamp &&
      priorStamp &&
      stamp.modifiedAt === priorStamp.modifiedAt &&
      stamp.size === priorStamp.size
    ) {
      const kept = priorUnreadable.get(file.path);
      if (!kept) continue;
      skipped += 1;
      kernelIssues.push(kept);
      continue;
    }
    toRead.push(file);
  }
  const gone = [...head.stamps.keys()].filter((path) => !listed.has(path));
  const prior = new Map<string, CatalogNode>();
  for (const node of await clock.measureAsync("load", () =>
    loadNodesAt(store, [...toRead.map((file) => file.path), ...gone]),
  ))
    prior.set(node.path, node);

  // The nodes as they are now, where they differ from the stored ones (undefined: removed).
  const current = new Map<string, CatalogNode | undefined>();
  const fresh = new Map<string, CatalogLink[]>();
  const changed = new Set<string>();
  const frontmatter = new Map<string, FrontmatterDiagnostic>();
  const stamps = new Map(head.stamps);
  let added = 0;
  const pool = input.tokenize ? await tokenPool(0) : null;
  const counted: Promise<void>[] = [];
  for (const file of toRead) {
    const before = prior.get(file.path);
    const read = clock.measure("parse", () => readNode(file, input.maxFileBytes, scannedAt));
    if (!read.ok) {
      skipped += 1;
      kernelIssues.push(read.issue);
      if (read.stamp) stamps.set(file.path, read.stamp);
      else stamps.delete(file.path);
      if (before) {
        changed.add(file.path);
        current.set(file.path, undefined);
      }
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
      continue;
    }
    if (!before) added += 1;
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
  for (const path of gone) {
    stamps.delete(path);
    if (prior.has(path)) {
      changed.add(path);
      current.set(path, undefined);
    }
  }
  for (const problem of listing.problems)
    kernelIssues.push(unreadable(problem.path, problem.reason, problem.message));
  if (pool) {
    await clock.measureAsync("tokenize", async () => {
      await pool.close();
      await Promise.all(counted);
    });
  }

  // Links a node's frontmatter draws from another source (`supersededBy`): every node's now (of
  // the stored ones, only those whose frontmatter holds a key their detectors draw such links
  // from, when every frontmatter detector declares its keys), and a changed node's before.
  // Sources whose links are recomputed: the changed nodes and every source a changed node draws
  // a link from, before or now.
  const linksOf = (node: CatalogNode): CatalogLink[] => {
    const links: CatalogLink[] = [];
    for (const detector of frontmatterDetectors) runFrontmatter(detector, node, links, diagnostic);
    return links;
  };
  const foreignKeys = frontmatterDetectors.every((d) => d.foreignSourceKeys !== undefined)
    ? [...new Set(frontmatterDetectors.flatMap((d) => d.foreignSourceKeys ?? []))]
    : null;
  const drawers = await clock.measureAsync("load", () =>
    foreignKeys ? loadNodesMentioning(store, foreignKeys) : loadNodes(store),
  );
  const drawn = new Map<string, CatalogLink[]>();
  const recompute = new Set(changed);
  clock.measure("detect", () => {
    const draw = (node: CatalogNode, links: readonly CatalogLink[]) => {
      for (const link of links) {
        if (link.source === node.path) continue;
        const list = drawn.get(link.source);
        if (list) list.push(link);
        else drawn.set(link.source, [link]);
        if (changed.has(node.path)) recompute.add(link.source);
      }
    };
    for (const node of drawers) if (!current.has(node.path)) draw(node, linksOf(node));
    for (const [path, node] of current) if (node) draw(node, fresh.get(path) ?? []);
    for (const path of changed) {
      const before = prior.get(path);
      if (!before) continue;
      for (const link of linksOf(before)) if (link.source !== path) recompute.add(link.source);
    }
  });

  const [stored, kept] = await clock.measureAsync("load", () =>
    Promise.all([
      loadLinksWhere(store, "source_path", recompute),
      loadNodesAt(
        store,
        [...recompute].filter((path) => !current.has(path) && !prior.has(path)),
      ),
    ]),
  );
  // The stored nodes of sources recomputed (and below, of nodes counted again).
  for (const node of kept) prior.set(node.path, node);
  stored.sort((a, b) => compareLinks(a.link, b.link) || a.id - b.id);
  const storedBySource = new Map<string, CatalogLink[]>();
  for (const { link } of stored) {
    const list = storedBySource.get(link.source);
    if (list) list.push(link);
    else storedBySource.set(link.source, [link]);
  }
  const nodeNow = (path: string): CatalogNode | undefined =>
    current.has(path) ? current.get(path) : prior.get(path);
  const recomputed = new Map<string, CatalogLink[]>();
  const newLinks: CatalogLink[] = [];
  clock.measure("detect", () => {
    for (const source of recompute) {
      const links: CatalogLink[] = [];
      const node = nodeNow(source);
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
  const newPaths = [...changed].filter((path) => current.get(path) && !prior.has(path));
  const [base, recounted] = await clock.measureAsync("load", () =>
    Promise.all([
      countLinksAt(store, newPaths),
      loadNodesAt(
        store,
        [...recount].filter((path) => !current.has(path) && !prior.has(path)),
      ),
    ]),
  );
  for (const node of recounted) prior.set(node.path, node);
  for (const path of recount) {
    const node = nodeNow(path);
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
  const change: GraphChange = {
    nodes: changed,
    before: (path) => (changed.has(path) ? prior.get(path) : undefined),
    after: (path) => (changed.has(path) ? current.get(path) : undefined),
    removedLinks,
    addedLinks: insertLinks,
  };
  const view = graphView(store, current, recomputed, input.strict, frontmatter);
  const issues = await clock.measureAsync("rules", () =>
    spliceIssues(rules, head.issues, change, view, diagnostic),
  );
  issues.push(...kernelIssues);

  const deleteNodes: string[] = [];
  const insertNodes: CatalogNode[] = [];
  for (const [path, node] of current) {
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
  const removed = [...current.values()].filter((node) => node === undefined).length;
  const nodesCount = head.stats.nodesCount + added - removed;
  const stats: ScanStats = {
    filesWalked: listing.walked,
    filesSkipped: skipped,
    nodesCount,
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
  return { stats, issues, reused: nodesCount - fresh.size };
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
