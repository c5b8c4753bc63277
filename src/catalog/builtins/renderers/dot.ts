import type { Renderer } from "../../extensions.js";

const quote = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** Graphviz DOT: nodes by path (shape by kind), edges labelled with the link kind. */
export const dotRenderer: Renderer = {
  kind: "renderer",
  id: "dot",
  version: "1.0.0",
  description: "Graphviz DOT digraph.",
  format: "dot",
  render({ nodes, links }) {
    const shape = { skill: "box", agent: "ellipse", command: "cds", hook: "hexagon", note: "note" };
    const lines = ["digraph catalog {", "  rankdir=LR;"];
    for (const node of nodes) {
      lines.push(
        `  ${quote(node.path)} [label=${quote(`${node.path}\n${node.kind}`)}, shape=${shape[node.kind]}];`,
      );
    }
    const known = new Set(nodes.map((n) => n.path));
    for (const link of links) {
      for (const end of [link.source, link.target]) {
        if (!known.has(end)) {
          known.add(end);
          lines.push(`  ${quote(end)} [style=dashed];`);
        }
      }
      lines.push(`  ${quote(link.source)} -> ${quote(link.target)} [label=${quote(link.kind)}];`);
    }
    lines.push("}");
    return `${lines.join("\n")}\n`;
  },
};
