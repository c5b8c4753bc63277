import { compareCodePoints } from "../../core/index.js";
import type { GraphChange, GraphView, Rule } from "../extensions.js";
import type { CatalogIssue } from "../model.js";
import { checkedIssues } from "./run-scan.js";

/**
 * The rules' issues after a change: each (incremental) rule re-evaluates the keys the change
 * touches; its stored issues of other keys are kept, and the two are merged in key order, as a
 * full scan orders them (see checkedIssues).
 */
export async function spliceIssues(
  rules: readonly Rule[],
  stored: readonly CatalogIssue[],
  change: GraphChange,
  view: GraphView,
  diagnostic: (message: string) => void,
): Promise<CatalogIssue[]> {
  const byRule = new Map<string, CatalogIssue[]>();
  for (const issue of stored) {
    const list = byRule.get(issue.ruleId);
    if (list) list.push(issue);
    else byRule.set(issue.ruleId, [issue]);
  }
  const issues: CatalogIssue[] = [];
  for (const rule of rules) {
    const incremental = rule.incremental;
    if (!incremental) throw new Error(`rule ${rule.id} has no incremental form`);
    const { keys, issues: found } = await incremental.reevaluate(change, view);
    const keyed: { issue: CatalogIssue; key: string }[] = [];
    for (const issue of byRule.get(rule.id) ?? []) {
      const key = incremental.key(issue);
      if (!keys.has(key)) keyed.push({ issue, key });
    }
    for (const issue of checkedIssues(rule, found, diagnostic)) {
      const key = incremental.key(issue);
      if (keys.has(key)) keyed.push({ issue, key });
    }
    keyed.sort((a, b) => compareCodePoints(a.key, b.key));
    for (const { issue } of keyed) issues.push(issue);
  }
  return issues;
}
