import { KeelError } from "../core/index.js";
import type { RenderGraph } from "./extensions.js";
import type { ExtensionRegistry } from "./registry.js";

/** Draws `graph` with the registry's renderer for `format`; an unknown format names the known ones. */
export function diagramOf(registry: ExtensionRegistry, format: string, graph: RenderGraph): string {
  const renderer = registry.renderers().find((r) => r.format === format);
  if (!renderer) {
    const known = registry.renderers().map((r) => r.format);
    throw new KeelError("CATALOG_FORMAT_UNKNOWN", `No renderer draws "${format}".`, {
      hint: `Use --format ${known.join(", ")}.`,
      details: { format, known },
    });
  }
  return renderer.render(graph);
}
