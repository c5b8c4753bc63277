import { triggerDetector } from "./trigger-detector.js";

/**
 * `/command` and `/ns:verb` in the body → `invokes`. A slash inside a path (`src/cli/run`) or a
 * URL is not a trigger: the slash must start the text or follow a character that is neither a
 * word character nor another slash.
 */
export const slashDetector = triggerDetector({
  id: "slash",
  description: "Slash-command triggers (/cmd, /ns:verb) in the body: invokes.",
  sigil: "/",
  notAfter: /[A-Za-z0-9_/]/,
  trigger: /\/[a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)?/iy,
  linkKind: "invokes",
});
