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

/**
 * The `name`s (as written) of changed nodes whose claim moved: `claim` gives what a rule makes
 * of a node's name (null: nothing), and a node whose claim is the same before and after (an
 * edited body under an unchanged name) contributes none; otherwise both its names.
 */
export function changedNames(
  change: GraphChange,
  claim: (node: CatalogNode, name: string) => string | null,
): string[] {
  const names: string[] = [];
  const claimOf = (node: CatalogNode | undefined) => {
    const name = node?.frontmatter.name;
    return node && typeof name === "string" && name !== "" ? claim(node, name) : null;
  };
  for (const path of change.nodes) {
    const before = change.before(path);
    const after = change.after(path);
    if (claimOf(before) === claimOf(after)) continue;
    for (const version of [before, after]) {
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
