import type { CatalogIssue, ScanResult } from "../../catalog/index.js";
import { pc } from "../colors.js";
import { table } from "../output.js";

const SEVERITY = {
  error: () => pc.red("error"),
  warn: () => pc.yellow("warn"),
  info: () => pc.dim("info"),
};

/** Issues as an aligned table (severity, rule, node, message). */
export function issuesTable(issues: readonly CatalogIssue[]): string {
  if (issues.length === 0) return "no issues";
  return table(
    ["severity", "rule", "node", "message"],
    issues.map((i) => [SEVERITY[i.severity](), i.ruleId, i.nodeIds.join(", "), i.message]),
  );
}

/** `3 nodes, 5 links, 3 issues (0 errors, 2 warnings, 1 info)`. */
export function scanSummary(result: {
  readonly stats: ScanResult["stats"];
  readonly issues: readonly CatalogIssue[];
}): string {
  const count = (s: string) => result.issues.filter((i) => i.severity === s).length;
  return `${result.stats.nodesCount} nodes, ${result.stats.linksCount} links, ${result.stats.issuesCount} issues (${count("error")} errors, ${count("warn")} warnings, ${count("info")} info)`;
}

/** 1 when any issue is an error (the scan and check exit code), else 0. */
export function issuesExitCode(issues: readonly CatalogIssue[]): number {
  return issues.some((i) => i.severity === "error") ? 1 : 0;
}
