import { NODE_KINDS, type ScanResult } from "./model.js";

/** A scan (or a selection of one) as a markdown document: nodes by kind, their links and issues. */
export function renderMarkdown(
  scan: Pick<ScanResult, "nodes" | "links" | "issues">,
  title = "Catalog",
): string {
  const lines = [
    `# ${title}`,
    "",
    `${scan.nodes.length} nodes, ${scan.links.length} links, ${scan.issues.length} issues.`,
  ];
  for (const kind of NODE_KINDS) {
    const nodes = scan.nodes.filter((n) => n.kind === kind);
    if (nodes.length === 0) continue;
    lines.push("", `## ${kind[0]?.toUpperCase()}${kind.slice(1)}s`, "");
    for (const node of nodes) {
      const tokens = node.tokens ? `, ${node.tokens.total} tokens` : "";
      lines.push(`### ${node.title ?? node.path}`, "", `- path: \`${node.path}\``);
      if (node.description) lines.push(`- description: ${node.description}`);
      if (node.version) lines.push(`- version: ${node.version}`);
      lines.push(`- size: ${node.bytes.total} bytes${tokens}`);
      const out = scan.links.filter((l) => l.source === node.path);
      if (out.length > 0) {
        lines.push("- links:");
        for (const link of out)
          lines.push(`  - ${link.kind} \`${link.target}\` (${link.sources.join(", ")})`);
      }
      const issues = scan.issues.filter((i) => i.nodeIds.includes(node.path));
      if (issues.length > 0) {
        lines.push("- issues:");
        for (const issue of issues)
          lines.push(`  - **${issue.severity}** ${issue.ruleId}: ${issue.message}`);
      }
      lines.push("");
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
