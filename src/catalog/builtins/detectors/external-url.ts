import type { Detector } from "../../extensions.js";
import type { CatalogLink } from "../../model.js";

const URL_PATTERN = /https?:\/\/[^\s<>"'`)\]]+/g;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;

/**
 * Counts distinct http(s) URLs in the body. It emits one link per URL (host lowercased, fragment
 * dropped, unparsable ones dropped); the scan counts them into `externalRefsCount` and keeps them
 * out of the graph.
 */
export const externalUrlDetector: Detector = {
  kind: "detector",
  id: "external-url-counter",
  version: "1.0.0",
  description: "Distinct external http(s) URLs in the body, counted into externalRefsCount.",
  scope: "body",
  emitsLinkKinds: ["references"],
  defaultConfidence: "low",
  detect({ node, body }) {
    const seen = new Set<string>();
    const links: CatalogLink[] = [];
    for (const match of body.matchAll(URL_PATTERN)) {
      const text = match[0].replace(TRAILING_PUNCTUATION, "");
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        continue;
      }
      url.hash = "";
      const target = url.href;
      if (seen.has(target)) continue;
      seen.add(target);
      links.push({
        source: node.path,
        target,
        kind: "references",
        confidence: "low",
        sources: ["external-url-counter"],
      });
    }
    return links;
  },
};
