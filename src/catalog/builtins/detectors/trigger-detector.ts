import type { Detector } from "../../extensions.js";
import type { CatalogLink, LinkKind } from "../../model.js";
import { normalizeTrigger } from "../../trigger.js";
import { lineLocator } from "./lines.js";

/**
 * A body detector for one sigil's triggers (`/deploy`, `@reviewer`): each distinct normalised
 * trigger once per node, at its first occurrence. The pattern's first group is the trigger.
 */
export function triggerDetector(options: {
  id: string;
  description: string;
  pattern: RegExp;
  linkKind: LinkKind;
}): Detector {
  const { id, pattern, linkKind } = options;
  return {
    kind: "detector",
    id,
    version: "1.0.0",
    description: options.description,
    scope: "body",
    emitsLinkKinds: [linkKind],
    defaultConfidence: "medium",
    detect({ node, body }) {
      const seen = new Set<string>();
      const links: CatalogLink[] = [];
      let lineOf: ((offset: number) => number) | undefined;
      for (const match of body.matchAll(pattern)) {
        const trigger = match[1];
        if (trigger === undefined) continue;
        const normalized = normalizeTrigger(trigger);
        if (seen.has(normalized)) continue;
        seen.add(normalized);
        lineOf ??= lineLocator(body);
        const offset = (match.index ?? 0) + match[0].length - trigger.length;
        links.push({
          source: node.path,
          target: trigger,
          kind: linkKind,
          confidence: "medium",
          sources: [id],
          trigger: { originalTrigger: trigger, normalizedTrigger: normalized },
          location: { line: lineOf(offset), offset },
        });
      }
      return links;
    },
  };
}
