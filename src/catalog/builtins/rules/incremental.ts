import type { GraphChange, IncrementalRule, RuleContext } from "../../extensions.js";
import type { CatalogIssue, CatalogLink, CatalogNode } from "../../model.js";

/** A link's identity in the graph: source, target, kind and normalised trigger. */
export function linkKey(link: Pick<CatalogLink, "source" | "target" | "kind" | "trigger">): string {
  return `${link.source}\u0000${link.target}\u0000${link.kind}\u0000${link.trigger?.normalizedTrigger ?? ""}`;
}

/** The changed nodes as they are now (removed ones left out), in path order. */
export function changedNodes(change: GraphChange): CatalogNode[] {
  return [...change.nodes]
    .sort()
    .map((path) => change.after(path))
    .filter((n): n is CatalogNode => n !== undefined);
}

/** Every `name` a changed node had before or has now (as written). */
export function changedNames(change: GraphChange): string[] {
  const names: string[] = [];
  for (const path of change.nodes) {
    for (const version of [change.before(path), change.after(path)]) {
      const name = version?.frontmatter.name;
      if (typeof name === "string" && name !== "") names.push(name);
    }
  }
  return names;
}

/**
 * The incremental form of a rule whose issues are each about one node and depend on that node
 * alone (its frontmatter and diagnostics): only changed nodes are evaluated again.
 */
export function perNode(evaluate: (context: RuleContext) => CatalogIssue[]): IncrementalRule {
  return {
    key: (issue) => issue.nodeIds[0] ?? "",
    async reevaluate(change, view) {
      const nodes = changedNodes(change);
      const issues = evaluate({
        nodes,
        links: [],
        strict: view.strict,
        frontmatter: view.frontmatter,
      });
      return { keys: change.nodes, issues };
    },
  };
}
