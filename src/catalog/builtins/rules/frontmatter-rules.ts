import type { Rule } from "../../extensions.js";
import { MALFORMED_MESSAGES, type MalformedHint } from "../../frontmatter/malformed.js";
import type { CatalogIssue } from "../../model.js";
import { perNode } from "./incremental.js";

/** A fenced frontmatter block that breaks its kind's schema: warn (`--strict`: error). */
export const frontmatterInvalidRule: Rule = {
  kind: "rule",
  id: "frontmatter-invalid",
  version: "1.0.0",
  description: "Frontmatter that breaks its kind's JSON Schema: warn, error under --strict.",
  evaluate({ nodes, frontmatter, strict }) {
    const issues: CatalogIssue[] = [];
    for (const node of nodes) {
      const problems = frontmatter.get(node.path)?.invalid;
      if (!problems || problems.length === 0) continue;
      issues.push({
        ruleId: "frontmatter-invalid",
        severity: strict ? "error" : "warn",
        nodeIds: [node.path],
        message: `${node.path}: frontmatter does not match the ${node.kind} schema: ${problems
          .map((p) => `${p.path || "/"} ${p.message}`)
          .join("; ")}.`,
        data: { kind: node.kind, errors: problems },
      });
    }
    return issues;
  },
  incremental: perNode((context) => frontmatterInvalidRule.evaluate(context)),
};

/** A frontmatter block the author meant but the scan could not use: warn (`--strict`: error). */
export const frontmatterMalformedRule: Rule = {
  kind: "rule",
  id: "frontmatter-malformed",
  version: "1.0.0",
  description:
    "A frontmatter block that is unreadable or not recognised: warn, error under --strict.",
  evaluate({ nodes, frontmatter, strict }) {
    const issues: CatalogIssue[] = [];
    for (const node of nodes) {
      const malformed = frontmatter.get(node.path)?.malformed;
      if (!malformed) continue;
      const text = MALFORMED_MESSAGES[malformed.hint as MalformedHint] ?? malformed.hint;
      issues.push({
        ruleId: "frontmatter-malformed",
        severity: strict ? "error" : "warn",
        nodeIds: [node.path],
        message: `${node.path} ${text}${malformed.message && malformed.message !== text ? ` (${malformed.message})` : ""}.`,
        data: { hint: malformed.hint },
      });
    }
    return issues;
  },
  incremental: perNode((context) => frontmatterMalformedRule.evaluate(context)),
};
