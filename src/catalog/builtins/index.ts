import type { Extension } from "../extensions.js";
import { claudeAdapter } from "./adapters/claude.js";
import { atDirectiveDetector } from "./detectors/at-directive.js";
import { externalUrlDetector } from "./detectors/external-url.js";
import { frontmatterDetector } from "./detectors/frontmatter.js";
import { slashDetector } from "./detectors/slash.js";
import { asciiRenderer } from "./renderers/ascii.js";
import { dotRenderer } from "./renderers/dot.js";
import { jsonRenderer } from "./renderers/json.js";
import { mermaidRenderer } from "./renderers/mermaid.js";
import { brokenRefRule } from "./rules/broken-ref.js";
import { frontmatterInvalidRule, frontmatterMalformedRule } from "./rules/frontmatter-rules.js";
import { linkConflictRule } from "./rules/link-conflict.js";
import { supersededRule } from "./rules/superseded.js";
import { triggerCollisionRule } from "./rules/trigger-collision.js";

/**
 * The extensions Keel ships, registered like any plugin's. Order matters where output order is
 * visible: detectors run, and rules report, in this order.
 */
export const BUILT_IN_EXTENSIONS: readonly Extension[] = [
  claudeAdapter,
  frontmatterDetector,
  slashDetector,
  atDirectiveDetector,
  externalUrlDetector,
  triggerCollisionRule,
  brokenRefRule,
  supersededRule,
  linkConflictRule,
  frontmatterInvalidRule,
  frontmatterMalformedRule,
  asciiRenderer,
  mermaidRenderer,
  dotRenderer,
  jsonRenderer,
];
