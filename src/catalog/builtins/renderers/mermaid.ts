import type { Renderer } from "../../extensions.js";
import { diagramIds } from "./ids.js";

const quote = (text: string) => `"${text.replace(/"/g, "#quot;")}"`;

/** A Mermaid flowchart: one box per node (labelled path and kind), one arrow per link. */
export const mermaidRenderer: Renderer = {
  kind: "renderer",
  id: "mermaid",
  version: "1.0.0",
  description: "Mermaid flowchart (flowchart LR).",
  format: "mermaid",
  render({ nodes, links }) {
    const id = diagramIds();
    const lines = ["flowchart LR"];
    for (const node of nodes)
      lines.push(`  ${id(node.path)}[${quote(`${node.path} (${node.kind})`)}]`);
    const known = new Set(nodes.map((n) => n.path));
    for (const link of links) {
      for (const end of [link.source, link.target]) {
        if (!known.has(end)) {
          known.add(end);
          lines.push(`  ${id(end)}([${quote(end)}])`);
        }
      }
      lines.push(`  ${id(link.source)} -->|${link.kind}| ${id(link.target)}`);
    }
    return `${lines.join("\n")}\n`;
  },
};
