/**
 * The slash and at-directive detectors jump from sigil to sigil instead of running one regular
 * expression over the body; over hand-picked traps and random bodies built from the characters
 * that matter, they find exactly what the expression they replace finds (same triggers, same
 * offsets and lines, first occurrence of each normalised trigger).
 */
import { describe, expect, it } from "vitest";
import { atDirectiveDetector } from "../../src/catalog/builtins/detectors/at-directive.js";
import { slashDetector } from "../../src/catalog/builtins/detectors/slash.js";
import type { Detector } from "../../src/catalog/extensions.js";
import type { CatalogNode } from "../../src/catalog/model.js";
import { normalizeTrigger } from "../../src/catalog/trigger.js";
import { seededRandom } from "../../src/runtime/index.js";

const node = { path: "notes/a.md" } as CatalogNode;

// What the detectors found with one expression each, before.
const REFERENCE: Record<string, RegExp> = {
  slash: /(?:^|[^A-Za-z0-9_/])(\/[a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)?)/gi,
  "at-directive": /(?:^|[^A-Za-z0-9_@])(@[a-z0-9][a-z0-9_-]*(?:[/:][a-z0-9][a-z0-9_-]*)?)/gi,
};

function reference(id: string, body: string) {
  const seen = new Set<string>();
  const found: { target: string; offset: number; line: number }[] = [];
  for (const match of body.matchAll(REFERENCE[id] as RegExp)) {
    const trigger = match[1] as string;
    const normalized = normalizeTrigger(trigger);
    if (seen.has(normalized)) continue;
    seen.add(normalized);
    const offset = (match.index ?? 0) + match[0].length - trigger.length;
    found.push({ target: trigger, offset, line: body.slice(0, offset).split("\n").length });
  }
  return found;
}

const detected = (detector: Detector, body: string) =>
  detector.detect({ node, body, frontmatter: {} }).map((link) => ({
    target: link.target,
    offset: link.location?.offset,
    line: link.location?.line,
  }));

const PIECES = [
  "/",
  "@",
  "a",
  "Z",
  "9",
  "_",
  "-",
  ":",
  " ",
  "\n",
  ".",
  "é",
  "ſ",
  "K",
  "x/",
  "/a-",
  "@b:",
  "me@",
  "//",
];
const TRAPS = [
  "Run /deploy then /Deploy and /deploy.",
  "/a-/b /a:b/c x/y http://h/p",
  "@x@y @a/b:c e@mail.com (@z) @@w",
  "/ns:verb:more /-x /_x /9 /é",
  "",
  "/",
  "@",
  "line\n/one\n\n@two",
];

describe("trigger detectors", () => {
  for (const detector of [slashDetector, atDirectiveDetector]) {
    it(`${detector.id} finds what its expression found, on traps`, () => {
      for (const body of TRAPS)
        expect(detected(detector, body), body).toEqual(reference(detector.id, body));
    });
    it(`${detector.id} finds what its expression found, on 2,000 random bodies`, () => {
      const random = seededRandom(detector.id.length);
      for (let i = 0; i < 2000; i++) {
        const length = Math.floor(random() * 24);
        const body = Array.from(
          { length },
          () => PIECES[Math.floor(random() * PIECES.length)],
        ).join("");
        expect(detected(detector, body), JSON.stringify(body)).toEqual(
          reference(detector.id, body),
        );
      }
    });
  }
});
