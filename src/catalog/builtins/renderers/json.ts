import type { Renderer } from "../../extensions.js";

/** The graph as JSON: `{ nodes, links, issues }` in the spec's shapes. */
export const jsonRenderer: Renderer = {
  kind: "renderer",
  id: "json",
  version: "1.0.0",
  description: "JSON: { nodes, links, issues }.",
  format: "json",
  render: ({ nodes, links, issues }) => `${JSON.stringify({ nodes, links, issues }, null, 2)}\n`,
};
