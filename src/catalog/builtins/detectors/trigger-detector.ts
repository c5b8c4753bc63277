import type { Detector } from "../../extensions.js";
import type { CatalogLink, LinkKind } from "../../model.js";
import { normalizeTrigger } from "../../trigger.js";
import { lineCounter } from "./lines.js";

/**
 * A body detector for one sigil's triggers (`/deploy`, `@reviewer`): each distinct normalised
 * trigger once per node, at its first occurrence. A trigger starts at the sigil, at the start of
 * the body or after a character `notAfter` does not match (and that no earlier trigger took),
 * and `trigger` (a sticky pattern) matches there.
 *
 * It finds what `/(?:^|[^…])(<trigger>)/g` finds, but jumps from sigil to sigil with `indexOf`:
 * a pattern that opens with an alternation is tried at every character of every body, most of
 * a cold scan's detection time.
 */
export function triggerDetector(options: {
  id: string;
  description: string;
  sigil: string;
  notAfter: RegExp;
  trigger: RegExp;
  linkKind: LinkKind;
}): Detector {
  const { id, sigil, notAfter, trigger, linkKind } = options;
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
      // Where the last trigger ended: the character before a sigil is taken by that trigger.
      let end = 0;
      for (let at = body.indexOf(sigil); at !== -1; at = body.indexOf(sigil, at + 1)) {
        if (at > 0 && (at - 1 < end || notAfter.test(body[at - 1] as string))) continue;
        trigger.lastIndex = at;
        const match = trigger.exec(body);
        if (match === null) continue;
        const text = match[0];
        end = at + text.length;
        const normalized = normalizeTrigger(text);
        if (seen.has(normalized)) continue;
        seen.add(normalized);
        lineOf ??= lineCounter(body);
        links.push({
          source: node.path,
          target: text,
          kind: linkKind,
          confidence: "medium",
          sources: [id],
          trigger: { originalTrigger: text, normalizedTrigger: normalized },
          location: { line: lineOf(at), offset: at },
        });
      }
      return links;
    },
  };
}
