import { compareCodePoints } from "../../../core/index.js";
import type { Renderer } from "../../extensions.js";
import type { CatalogLink } from "../../model.js";

/** A tree per node: its kind, then each outgoing link (`─invokes→ /deploy`), broken ones marked. */
export const asciiRenderer: Renderer = {
  kind: "renderer",
  id: "ascii",
  version: "1.0.0",
  description: "Plain-text outline: each node with its outgoing links.",
  format: "ascii",
  render({ nodes, links }) {
    const paths = new Set(nodes.map((n) => n.path));
    const out = new Map<string, CatalogLink[]>();
    for (const link of links) {
      const list = out.get(link.source) ?? [];
      list.push(link);
      out.set(link.source, list);
    }
    const lines: string[] = [];
    for (const node of [...nodes].sort((a, b) => compareCodePoints(a.path, b.path))) {
      lines.push(`${node.path} [${node.kind}]`);
      const own = out.get(node.path) ?? [];
      own.forEach((link, index) => {
        const branch = index === own.length - 1 ? "└─" : "├─";
        const mark = paths.has(link.target) || link.trigger ? "" : " (missing)";
        lines.push(`  ${branch} ${link.kind} → ${link.target}${mark}`);
      });
    }
    const dangling = links.filter((l) => !paths.has(l.source));
    for (const link of dangling)
      lines.push(`${link.source} (not scanned) ─ ${link.kind} → ${link.target}`);
    return lines.length ? `${lines.join("\n")}\n` : "(empty graph)\n";
  },
};
