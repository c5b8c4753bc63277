import type { Rule } from "../../extensions.js";
import type { CatalogIssue } from "../../model.js";
import { perNode } from "./incremental.js";

/** A node whose `metadata.supersededBy` names its replacement is reported, as information. */
export const supersededRule: Rule = {
  kind: "rule",
  id: "superseded",
  version: "1.0.0",
  description: "Nodes that declare metadata.supersededBy: info.",
  evaluate({ nodes }) {
    const issues: CatalogIssue[] = [];
    for (const node of nodes) {
      const metadata = node.frontmatter.metadata;
      if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) continue;
      const supersededBy = (metadata as Record<string, unknown>).supersededBy;
      if (typeof supersededBy !== "string" || supersededBy === "") continue;
      issues.push({
        ruleId: "superseded",
        severity: "info",
        nodeIds: [node.path],
        message: `${node.path} is superseded by ${supersededBy}; point its users there.`,
        data: { supersededBy },
      });
    }
    return issues;
  },
  incremental: perNode((context) => supersededRule.evaluate(context)),
};
