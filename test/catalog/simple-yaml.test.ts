/**
 * The frontmatter fast path against the `yaml` package: whatever `parseSimpleYaml` accepts it
 * must read exactly as `splitFrontmatter`'s full parse does, over hand-picked traps and random
 * blocks built from YAML's awkward pieces; what it refuses, `yaml` still reads.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseSimpleYaml } from "../../src/catalog/frontmatter/simple-yaml.js";
import { seededRandom } from "../../src/runtime/index.js";

const full = (raw: string): unknown => {
  try {
    return JSON.parse(JSON.stringify(parse(raw, { uniqueKeys: false, maxAliasCount: 100 })));
  } catch {
    return "yaml-error";
  }
};

const SCALARS = [
  "deploy",
  "Deploys the app, then checks it",
  "1.0.3",
  "1.0",
  "12",
  "0x1F",
  ".5",
  "1e3",
  "true",
  "False",
  "null",
  "~",
  "yes",
  "on",
  "https://example.com/a#frag",
  "a: b",
  "a #comment",
  "a#b",
  "ends:",
  '"quoted"',
  "'single'",
  "it's fine",
  "@handle",
  "*bold*",
  "&anchor",
  "!tag",
  "|",
  ">",
  "- item",
  "[a, b]",
  "{a: 1}",
  "x, y [z] {w}",
  "100%",
  "café",
  "\u00a0padded\u00a0",
  "tab\there",
  "trailing   ",
  "`code`",
  "?q",
  "-5",
  "+.inf",
  ".NaN",
  "2024-01-01",
];
const KEYS = [
  "name",
  "description",
  "metadata",
  "related",
  "true",
  "null",
  "__proto__",
  "a_b-c",
  "1x",
  "key ",
];

function randomBlock(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const lines: string[] = [];
  const emit = (indent: number, depth: number) => {
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const pad = " ".repeat(indent);
      const shape = random();
      const key = random() < 0.85 ? pick(KEYS.slice(0, 4)) : pick(KEYS);
      if (shape < 0.5 || depth > 2) lines.push(`${pad}${key}: ${pick(SCALARS)}`);
      else if (shape < 0.7) {
        lines.push(`${pad}${key}:`);
        const itemPad = random() < 0.3 ? pad : `${pad}  `;
        for (let j = 0; j < 1 + Math.floor(random() * 3); j++)
          lines.push(`${itemPad}- ${pick(SCALARS)}`);
      } else if (shape < 0.9) {
        lines.push(`${pad}${key}:`);
        emit(indent + (random() < 0.8 ? 2 : 4), depth + 1);
      } else {
        lines.push(`${pad}${key}:`);
      }
      if (random() < 0.05) lines.push("");
      if (random() < 0.03) lines.push(`${pad}  continued line`);
      if (random() < 0.03) lines.push(`${pad}# a comment`);
    }
  };
  emit(0, 0);
  return lines.join("\n");
}

describe("parseSimpleYaml", () => {
  it("reads the plain subset exactly as yaml does", () => {
    const raw = [
      "name: deploy",
      "description: Deploys the app, safely (v2) — café",
      "metadata:",
      "  version: 1.0.3",
      "  related:",
      "    - .claude/agents/a.md",
      "    - notes/b.md",
      "  requires:",
      "  - x.md",
      "  empty:",
      "",
      "tools:",
    ].join("\n");
    const simple = parseSimpleYaml(raw);
    expect(simple).toEqual(full(raw));
    expect(simple).toEqual({
      name: "deploy",
      description: "Deploys the app, safely (v2) — café",
      metadata: {
        version: "1.0.3",
        related: [".claude/agents/a.md", "notes/b.md"],
        requires: ["x.md"],
        empty: null,
      },
      tools: null,
    });
  });

  it("refuses what is outside the subset (the caller falls back to yaml)", () => {
    for (const raw of [
      "version: 1.0",
      "a: true",
      "a: 'q'",
      "a: b # c",
      "a: |\n  text",
      "a: b\na: c",
      "a: x\n  y",
      "  a: b",
      "a:\tb",
      "__proto__: x",
      "a: [1, 2]",
      "a:\n  - b: c",
    ]) {
      expect(parseSimpleYaml(raw), raw).toBeUndefined();
    }
  });

  it("agrees with yaml on 1,000 random blocks of awkward pieces", () => {
    const random = seededRandom(15);
    let accepted = 0;
    for (let i = 0; i < 1000; i++) {
      const raw = randomBlock(random);
      const simple = parseSimpleYaml(raw);
      if (simple === undefined) continue;
      accepted += 1;
      expect(simple, raw).toEqual(full(raw));
    }
    // The generator must exercise the fast path, not only the fallback.
    expect(accepted).toBeGreaterThan(100);
  });
});
