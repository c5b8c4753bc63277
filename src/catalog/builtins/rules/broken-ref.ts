import type { Rule } from "../../extensions.js";
import type { CatalogIssue } from "../../model.js";
import { linkResolver } from "../../resolve.js";

/**
 * A link whose target is no node is a warning. A trigger link (`/deploy`, `@architect`) resolves
 * to a node whose frontmatter `name` normalises to the trigger without its sigil; any link
 * resolves to a node whose path is its target verbatim.
 */
export const brokenRefRule: Rule = {
  kind: "rule",
  id: "broken-ref",
  version: "1.0.0",
  description: "Links whose target resolves to no node (by path, or a trigger by name): warn.",
  evaluate({ nodes, links }) {
    const resolve = linkResolver(nodes);
    const issues: CatalogIssue[] = [];
    for (const link of links) {
      if (resolve(link) !== null) continue;
      const normalized = link.trigger?.normalizedTrigger;
      issues.push({
        ruleId: "broken-ref",
        severity: "warn",
        nodeIds: [link.source],
        message: `${link.source} ${link.kind} ${link.target}, which is not a node of the graph.`,
        data: { target: link.target, kind: link.kind, trigger: normalized ?? null },
      });
    }
    return issues;
  },
};
