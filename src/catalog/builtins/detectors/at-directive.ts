import { triggerDetector } from "./trigger-detector.js";

/**
 * `@handle`, `@scope/name` and `@ns:verb` in the body → `mentions`. An e-mail address is not a
 * mention: the `@` must start the text or follow a character that is not a word character.
 */
export const atDirectiveDetector = triggerDetector({
  id: "at-directive",
  description: "@-directives (@agent, @scope/name, @ns:verb) in the body: mentions.",
  sigil: "@",
  notAfter: /[A-Za-z0-9_@]/,
  trigger: /@[a-z0-9][a-z0-9_-]*(?:[/:][a-z0-9][a-z0-9_-]*)?/iy,
  linkKind: "mentions",
});
