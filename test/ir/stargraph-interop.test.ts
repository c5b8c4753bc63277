import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_NODE_KINDS,
  backfillRuleNodeIds,
  compileWhen,
  type IRDocument,
  loads,
  structuralHash,
  whenNodeRef,
} from "../../src/ir/index.js";
import { keelInProcess } from "../store/cli-in-process.js";

/**
 * Stargraph 0.8.0's own IR material and its recorded answers (../shared/reference/
 * stargraph-interop, read at test time, never copied here): Keel must agree with it everywhere
 * but where it differs by design (docs/ir.md, "Stargraph interop").
 */
const root = fileURLToPath(new URL("../..", import.meta.url));
const interop = join(root, "..", "shared", "reference", "stargraph-interop");
const present = existsSync(join(interop, "corpus.json"));
if (!present) console.warn(`stargraph-interop: ${interop} is absent; these tests are skipped.`);

interface Case {
  id: string;
  kind: string;
  model?: string;
  source: string;
  text?: string;
  value?: unknown;
  fn?: string;
  args?: unknown[];
}
type Answer = {
  ok?: boolean;
  result?: unknown;
  validate?: { ok: boolean };
  graph_hash?: { ok: boolean; hash?: string };
};

const read = <T>(file: string): T => JSON.parse(readFileSync(join(interop, file), "utf8")) as T;
const corpus = present ? read<{ cases: Case[] }>("corpus.json").cases : [];
const answers = present ? read<{ answers: Record<string, Answer> }>("answers.json").answers : {};
const documentOf = (c: Case): IRDocument =>
  c.text !== undefined ? loads(c.text) : loads(JSON.stringify(c.value));
/** Stargraph's graph files (not inputs made up inside its unit tests). */
const graphFiles = corpus.filter(
  (c) => c.kind === "doc" && c.model === "IRDocument" && !c.source.includes("::"),
);

/**
 * Disagreements the checker reports by design, by its class label: Keel writes each action's
 * `kind` (Stargraph's dumps drop it, so its own output does not load back), `graphHash` stays
 * the seed's hash (the structural hash is `structuralHash`, checked below), and the checker has
 * no counterpart for compile_when / backfill_rule_node_ids / when_node_ref (checked below).
 */
const EXPECTED = new Map<string, number>([
  ["Stargraph dumps drop action `kind` (exclude_defaults); Keel keeps it", 294],
  ["Stargraph's own dumps output does not load back (kind dropped); Keel's does", 50],
  ["canonical-sha256: other", 23],
  [
    "graph hash algorithm (Stargraph: JCS structural hash; Keel: sha256(canonical) without migrate)",
    91,
  ],
  ["keel lacks: compile_when", 17],
  ["keel lacks: backfill_rule_node_ids", 8],
  ["keel lacks: when_node_ref", 3],
]);

/** The empty value of each state type, for a run's input. */
const EMPTY: Record<string, unknown> = {
  str: "",
  string: "",
  int: 0,
  integer: 0,
  float: 0,
  number: 0,
  bool: false,
  boolean: false,
  bytes: "",
  list: [],
  array: [],
  dict: {},
  object: {},
};

describe.skipIf(!present)("Stargraph 0.8 interop", () => {
  it("the checker finds no disagreement beyond the deliberate and named ones", () => {
    // The checker imports <checkout>/dist/ir; a scratch checkout whose dist/ir is this source.
    const checkout = mkdtempSync(join(tmpdir(), "keel-stargraph-"));
    try {
      mkdirSync(join(checkout, "dist", "ir"), { recursive: true });
      const source = pathToFileURL(join(root, "src", "ir", "index.ts")).href;
      writeFileSync(
        join(checkout, "dist", "ir", "index.js"),
        `export * from ${JSON.stringify(source)};\n`,
      );
      const run = spawnSync(
        process.execPath,
        ["--import", "tsx", join(interop, "check.mjs"), checkout, "--summary"],
        { cwd: root, encoding: "utf8" },
      );
      const classes = new Map<string, number>();
      const section = run.stdout.split("disagreement classes (heuristic labels):")[1] ?? "";
      for (const line of section.split("\n")) {
        const match = /^\s+(\d+)\s+(.+)$/.exec(line);
        if (match) classes.set(match[2] as string, Number(match[1]));
      }
      expect(run.stdout, run.stderr).toMatch(/keel agrees on \d+ of \d+ cases/);
      expect(Object.fromEntries(classes)).toEqual(Object.fromEntries(EXPECTED));
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });

  it("structuralHash equals Stargraph's graph_hash on every document with a state_schema", () => {
    let compared = 0;
    for (const c of corpus) {
      const answer = answers[c.id]?.graph_hash;
      if (!answer?.ok || c.kind !== "doc") continue;
      const doc = documentOf(c);
      if (doc.state_class !== null) continue; // a Python class: its schema must be supplied
      expect(structuralHash(doc), `${c.id} ${c.source}`).toBe(answer.hash);
      compared++;
    }
    expect(compared).toBe(84);
  });

  it("compileWhen, whenNodeRef and backfillRuleNodeIds answer as Stargraph's helpers do", () => {
    let compared = 0;
    for (const c of corpus.filter((x) => x.kind === "call")) {
      const answer = answers[c.id] as Answer;
      const [first] = c.args ?? [];
      if (c.fn === "compile_when") {
        if (answer.ok) expect(compileWhen(first as string)).toBe(answer.result);
        else expect(() => compileWhen(first as Record<string, unknown>)).toThrow();
      } else if (c.fn === "when_node_ref") {
        expect(whenNodeRef(first as Record<string, unknown>)).toBe(answer.result);
      } else if (c.fn === "backfill_rule_node_ids") {
        const doc = loads(JSON.stringify(first));
        expect(backfillRuleNodeIds(doc).rules.map((rule) => rule.node_id)).toEqual(answer.result);
      } else continue;
      compared++;
    }
    expect(compared).toBe(28);
  });

  it("`keel run` runs each of Stargraph's graph files to its end or to a person's answer", async () => {
    // Kinds Keel cannot build (DSPy, Python classes) come from a --kinds module, as a user
    // porting the graph would write one: a node that changes nothing.
    const dir = mkdtempSync(join(tmpdir(), "keel-stargraph-run-"));
    const zod = pathToFileURL(join(root, "node_modules", "zod", "index.js")).href;
    const outcomes = new Map<string, number>();
    try {
      for (const c of graphFiles) {
        if (!answers[c.id]?.validate?.ok) continue;
        const doc = documentOf(c);
        const file = join(dir, `${c.id}.json`);
        writeFileSync(file, JSON.stringify(c.value ?? JSON.parse(c.text ?? "{}")));
        const foreign = [...new Set(doc.nodes.map((node) => node.kind))].filter(
          (kind) => !(kind in BUILTIN_NODE_KINDS),
        );
        // Its governance packs are Stargraph's CLIPS files: empty stand-ins in the packs folder.
        for (const pack of doc.governance) writeFileSync(join(dir, `${pack.id}.clp`), "");
        const kinds = join(dir, `${c.id}.kinds.mjs`);
        writeFileSync(
          kinds,
          [
            `import { z } from ${JSON.stringify(zod)};`,
            `const still = () => () => ({});`,
            `export const nodeKinds = ${JSON.stringify(Object.fromEntries(foreign.map((k) => [k, 0])))};`,
            "for (const kind of Object.keys(nodeKinds)) nodeKinds[kind] = still;",
            `export const stateClasses = ${doc.state_class ? `{ ${JSON.stringify(doc.state_class)}: z.object({}) }` : "{}"};`,
          ].join("\n"),
        );
        // Every state field is required in a run's input: each gets its type's empty value.
        const input = Object.fromEntries(
          Object.entries(doc.state_schema).map(([field, type]) => [field, EMPTY[type] ?? null]),
        );
        const run = await keelInProcess([
          "run",
          file,
          "--input",
          JSON.stringify(input),
          "--kinds",
          kinds,
          "--packs",
          dir,
          "--db",
          join(dir, "keel.db"),
          "--json",
        ]);
        expect(run.exitCode, `${c.source}: ${run.stdout}${run.stderr}`).toBe(0);
        const status = String(run.json.status);
        expect(["completed", "interrupted"], `${c.source}: ${status}`).toContain(status);
        const rules = new Set(doc.rules.map((rule) => rule.id));
        for (const t of run.json.transitions as { rule: string | null }[]) {
          if (t.rule !== null) expect(rules.has(t.rule), c.source).toBe(true);
        }
        outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Stargraph validates 48 of its 50 graph files; two of them stop at an interrupt.
    expect(Object.fromEntries(outcomes)).toEqual({ completed: 46, interrupted: 2 });
  });
});
