import type { Detector } from "../../extensions.js";
import type { CatalogLink, LinkKind } from "../../model.js";

const ID = "frontmatter";

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string" && v.length > 0)
    : [];
}

function link(source: string, target: string, kind: LinkKind): CatalogLink {
  return { source, target, kind, confidence: "high", sources: [ID] };
}

/**
 * Structured references in `metadata`: `supersedes` (→ supersedes), `supersededBy` (the edge is
 * drawn from the newer node to this one), `requires` and `related` (→ references). Targets are
 * node paths, resolved verbatim.
 */
export const frontmatterDetector: Detector = {
  kind: "detector",
  id: ID,
  version: "1.0.0",
  description:
    "metadata.supersedes / supersededBy / requires / related: supersedes and references.",
  scope: "frontmatter",
  emitsLinkKinds: ["supersedes", "references"],
  defaultConfidence: "high",
  // Only supersededBy draws an edge from another node (the newer one).
  foreignSourceKeys: ["supersededBy"],
  detect({ node, frontmatter }) {
    const metadata = frontmatter.metadata;
    if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return [];
    const meta = metadata as Record<string, unknown>;
    const links: CatalogLink[] = [];
    for (const target of strings(meta.supersedes))
      links.push(link(node.path, target, "supersedes"));
    if (typeof meta.supersededBy === "string" && meta.supersededBy.length > 0) {
      links.push(link(meta.supersededBy, node.path, "supersedes"));
    }
    for (const target of strings(meta.requires)) links.push(link(node.path, target, "references"));
    for (const target of strings(meta.related)) links.push(link(node.path, target, "references"));
    return links;
  },
};
