import { sha256Hex } from "../core/index.js";
import { PREAMBLE_V1 } from "./preamble.js";

/**
 * `promptTemplateHash`: sha256 of the preamble followed by the action's template, so a changed
 * preamble (a spec bump) or template gives new hashes and never collides with older jobs.
 */
export function promptTemplateHash(template: string): string {
  return sha256Hex(PREAMBLE_V1 + template);
}

/** The parts of a job's content hash (dispatch-lifecycle.md, Submit step 3). */
export interface ContentHashParts {
  readonly actionId: string;
  readonly actionVersion: string;
  readonly bodyHash: string;
  readonly frontmatterHash: string;
  readonly promptTemplateHash: string;
}

/**
 * `sha256(actionId + actionVersion + bodyHash + frontmatterHash + promptTemplateHash)`, the plain
 * concatenation the spec states (its stable duplicate-detection key).
 *
 * @example
 * contentHash({ actionId: "skill-summarizer", actionVersion: "1.0.0", bodyHash, frontmatterHash, promptTemplateHash: promptTemplateHash(t) });
 */
export function contentHash(parts: ContentHashParts): string {
  return sha256Hex(
    parts.actionId +
      parts.actionVersion +
      parts.bodyHash +
      parts.frontmatterHash +
      parts.promptTemplateHash,
  );
}
