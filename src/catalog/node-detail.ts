import { KeelError } from "../core/index.js";
import type { Store } from "../store/index.js";
import { type Finding, listFindings } from "./findings.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanResult, TripleSplit } from "./model.js";
import { linkResolver } from "./resolve.js";

/** One node of the stored scan with everything about it (what `keel show` and the inspector print). */
export interface NodeDetail {
  node: CatalogNode;
  weight: { bytes: TripleSplit; tokens: TripleSplit | null };
  frontmatter: Record<string, unknown>;
  linksOut: CatalogLink[];
  /** Links whose target is this path verbatim (what the scan's `linksInCount` counts). */
  linksIn: CatalogLink[];
  /** Links that land on this node by path or by trigger name (`/deploy`), as broken-ref resolves them. */
  linksInResolved: CatalogLink[];
  issues: CatalogIssue[];
  findings: Finding[];
  summary: Record<string, unknown> | null;
}

/**
 * One node of `scan`: its weight, links in and out, issues, findings and stored summary;
 * CATALOG_NODE_NOT_FOUND when the last scan has no such path.
 *
 * @example
 * const detail = await nodeDetail(store, scan, ".claude/skills/deploy/SKILL.md");
 */
export async function nodeDetail(
  store: Store,
  scan: ScanResult,
  path: string,
): Promise<NodeDetail> {
  const node = scan.nodes.find((n) => n.path === path);
  if (!node) {
    throw new KeelError("CATALOG_NODE_NOT_FOUND", `${path} is not a node of the last scan.`, {
      hint: "`keel list` prints the node paths; `keel scan` refreshes them.",
      details: { path },
    });
  }
  const summaries = await store.kysely
    .selectFrom("state_summaries")
    .selectAll()
    .where("node_id", "=", path)
    .execute();
  const findings = (await listFindings(store)).filter((f) => f.nodeId === path);
  const first = summaries[0];
  const resolve = linkResolver(scan.nodes);
  return {
    node,
    weight: { bytes: node.bytes, tokens: node.tokens ?? null },
    frontmatter: node.frontmatter,
    linksOut: scan.links.filter((l) => l.source === path),
    linksIn: scan.links.filter((l) => l.target === path),
    linksInResolved: scan.links.filter((l) => resolve(l) === path),
    issues: scan.issues.filter((i) => i.nodeIds.includes(path)),
    findings,
    summary: first
      ? {
          action: first.summarizer_action_id,
          generatedAt: Number(first.generated_at),
          ...(JSON.parse(first.summary_json) as Record<string, unknown>),
        }
      : null,
  };
}
