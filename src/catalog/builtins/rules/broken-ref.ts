import type { Rule } from "../../extensions.js";
import type { CatalogIssue } from "../../model.js";
import { normalizeTrigger } from "../../trigger.js";

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
    const paths = new Set(nodes.map((node) => node.path));
    const names = new Set<string>();
    for (const node of nodes) {
      const name = node.frontmatter.name;
      if (typeof name === "string" && name !== "") names.add(normalizeTrigger(name));
    }
    const issues: CatalogIssue[] = [];
    for (const link of links) {
      const normalized = link.trigger?.normalizedTrigger;
      if (normalized && names.has(normalized.replace(/^[/@]/, "").trim())) continue;
      if (paths.has(link.target)) continue;
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
