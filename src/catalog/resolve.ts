import type { CatalogLink, CatalogNode } from "./model.js";
import { normalizeTrigger } from "./trigger.js";

/**
 * Where links land: a link resolves to the node whose path is its target verbatim, or (a
 * trigger link, `/deploy`, `@architect`) to the node whose frontmatter `name` normalises to the
 * trigger without its sigil; null when it lands on no node (what `broken-ref` reports).
 *
 * @example
 * const resolve = linkResolver(scan.nodes);
 * resolve({ ...link, target: "/deploy" }); // ".claude/commands/deploy.md"
 */
export function linkResolver(
  nodes: readonly CatalogNode[],
): (link: Pick<CatalogLink, "target" | "trigger">) => string | null {
  const paths = new Set(nodes.map((node) => node.path));
  const byName = new Map<string, string>();
  for (const node of nodes) {
    const name = node.frontmatter.name;
    if (typeof name === "string" && name !== "" && !byName.has(normalizeTrigger(name)))
      byName.set(normalizeTrigger(name), node.path);
  }
  return (link) => {
    const normalized = link.trigger?.normalizedTrigger;
    if (normalized) {
      const named = byName.get(normalized.replace(/^[/@]/, "").trim());
      if (named !== undefined) return named;
    }
    return paths.has(link.target) ? link.target : null;
  };
}
