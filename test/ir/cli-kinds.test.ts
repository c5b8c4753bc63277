/**
 * `keel run --kinds <module>`: node kinds for documents that use kinds the registry does not have
 * (the seed's triage example has a `dspy` node), recorded with the run so `keel runs respond|resume`
 * by id compile the document with the same kinds; every example in examples/ runs from the CLI;
 * governance packs provided by a plugin.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keelJson, pathsOf, root } from "./cli-support.js";

const dir = mkdtempSync(join(tmpdir(), "keel-ir-kinds-"));
const db = join(dir, "runs.db");
const keel = (...args: string[]) => keelJson([...args, "--db", db]);
const kinds = "examples/kinds.mjs";

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

/** An input of the right type for every field of an example's state schema. */
const INPUTS: Record<string, Record<string, unknown>> = {
  "triage.json": { message: "disk full", severity: 5 },
  "refund-approval.json": {
    customer_id: "c1",
    amount: 120.5,
    fraud_score: 0.1,
    mail_failed: 0,
    approved: false,
  },
  "research-fanout.json": { question: "q", outages: ["news"] },
};

describe("keel run --kinds", { timeout: 180_000 }, () => {
  it("runs the seed's triage example, whose dspy node comes from a kinds module", async () => {
    const without = await keel(
      "run",
      "examples/triage.json",
      "--input",
      '{"message":"m","severity":5}',
    );
    expect(without.code).toBe(1);
    expect(without.out.error?.code).toBe("IR_INVALID");
    expect(JSON.stringify(without.out.error)).toContain("--kinds");

    const run = await keel(
      "run",
      "examples/triage.json",
      "--kinds",
      kinds,
      "--input",
      '{"message":"disk full","severity":5}',
    );
    expect(run.code).toBe(0);
    expect(run.out).toMatchObject({
      status: "completed",
      run_status: "succeeded",
      state: { message: "[node_b: escalated, severity 5] disk full", severity: 5 },
    });
    expect(pathsOf(run.out)).toEqual(["node_a>node_b", "node_b>halt", "halt>__end__"]);
  });

  it("every example in examples/ runs from the CLI", async () => {
    // The IR documents among the examples (other JSON files there configure other demos).
    const examples = readdirSync(join(root, "examples")).filter(
      (f) =>
        f.endsWith(".json") &&
        "ir_version" in JSON.parse(readFileSync(join(root, "examples", f), "utf8")),
    );
    expect(examples.sort()).toEqual(Object.keys(INPUTS).sort());
    for (const example of examples) {
      const run = await keel(
        "run",
        `examples/${example}`,
        "--kinds",
        kinds,
        "--input",
        JSON.stringify(INPUTS[example]),
      );
      expect(run.code, `${example}: ${JSON.stringify(run.out)}`).toBe(0);
      expect(["completed", "interrupted"]).toContain(run.out.status);
    }
  });

  it("a run keeps its kinds: respond by run id from another directory loads them again", async () => {
    const doc = file("ask-then-dspy.json", {
      ir_version: "1.0.0",
      id: "graph:ask-then-dspy",
      nodes: [
        { id: "ask", kind: "echo" },
        { id: "node_b", kind: "dspy" },
        { id: "end", kind: "halt" },
      ],
      rules: [
        // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
        { id: "rule.ask", when: "(node-id ask)", then: [{ kind: "interrupt", prompt: "go?" }] },
      ],
      state_schema: { message: "str", severity: "int" },
    });
    const paused = await keel(
      "run",
      doc,
      "--kinds",
      kinds,
      "--input",
      '{"message":"m","severity":1}',
    );
    expect(paused.code).toBe(0);
    expect(paused.out.status).toBe("interrupted");
    const done = await keelJson(
      ["runs", "respond", paused.out.run_id as string, "--value", '{"severity":4}', "--db", db],
      dir,
    );
    expect(done.code).toBe(0);
    expect(done.out).toMatchObject({
      status: "completed",
      state: { message: "[node_b: escalated, severity 4] m", severity: 4 },
    });
  });

  it("a kinds module registers state classes too, recorded with the run like its node kinds", async () => {
    const zod = import.meta.resolve("zod");
    const module = file(
      "ticket-state.mjs",
      [
        `import { z } from ${JSON.stringify(zod)};`,
        "export const stateClasses = {",
        "  Ticket: z.object({ message: z.string(), severity: z.number().int().min(0).max(5) }),",
        "};",
      ].join("\n"),
    );
    const doc = file("ticket.json", {
      ir_version: "1.0.0",
      id: "graph:ticket",
      nodes: [
        { id: "ask", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      rules: [
        // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
        { id: "rule.ask", when: "(node-id ask)", then: [{ kind: "interrupt", prompt: "go?" }] },
      ],
      state_class: "Ticket",
    });
    const without = await keel("run", doc, "--input", '{"message":"m","severity":1}');
    expect(without.out.error?.details.problems).toEqual([
      expect.objectContaining({ code: "unknown_state_class", path: "/state_class" }),
    ]);
    const paused = await keel(
      "run",
      doc,
      "--kinds",
      module,
      "--input",
      '{"message":"m","severity":1}',
    );
    expect(paused.out.status).toBe("interrupted");
    // Another directory, no --kinds: the run's recorded module gives the class (severity <= 5),
    // so the answer is refused before the run is touched; a good one then finishes it.
    const respond = (value: string) =>
      keelJson(["runs", "respond", paused.out.run_id as string, "--value", value, "--db", db], dir);
    const refused = await respond('{"severity":9}');
    expect(refused.code).toBe(1);
    expect(refused.out.error?.details.problems).toEqual([
      expect.objectContaining({ code: "state_type", path: "/severity" }),
    ]);
    expect((await respond('{"severity":4}')).out).toMatchObject({
      status: "completed",
      state: { message: "m", severity: 4 },
    });
  });

  it("a module without node kinds is IR_NODE_KINDS_INVALID, exit 2; validate --kinds checks kinds", async () => {
    const empty = file("empty.mjs", "export const other = 1;\n");
    for (const module of [empty, join(dir, "missing.mjs")]) {
      const run = await keel("run", "examples/triage.json", "--kinds", module);
      expect(run.code).toBe(2);
      expect(run.out.error?.code).toBe("IR_NODE_KINDS_INVALID");
    }
    const ok = await keelJson(["ir", "validate", "examples/triage.json", "--kinds", kinds]);
    expect(ok.code).toBe(0);
    const other = file("other-kinds.mjs", "export const nodeKinds = { llm: () => () => ({}) };\n");
    const missing = await keelJson(["ir", "validate", "examples/triage.json", "--kinds", other]);
    expect(missing.code).toBe(1);
    expect(missing.out.problems).toEqual([
      expect.objectContaining({ code: "unknown_node_kind", path: "/nodes/1/kind" }),
    ]);
  });

  it("mounts a governance pack a plugin provides; its rules route with (ir-action …)", async () => {
    const plugin = join(dir, "plugins", "refund-policy");
    mkdirSync(plugin, { recursive: true });
    writeFileSync(
      join(plugin, "plugin.json"),
      JSON.stringify({
        id: "refund-policy",
        version: "2.0.0",
        api_version: "1",
        packs: { "pack.hard-limits": "hard-limits.clp" },
      }),
    );
    writeFileSync(
      join(plugin, "hard-limits.clp"),
      [
        "; version: 2.0.0",
        "(defrule over-hard-limit",
        "  (amount ?a&:(> ?a 1000)) (node-id check)",
        "  =>",
        '  (ir-action halt "over the hard limit"))',
      ].join("\n"),
    );
    const doc = file("policy.json", {
      ir_version: "1.0.0",
      id: "graph:policy",
      nodes: [
        { id: "check", kind: "echo" },
        { id: "pay", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      state_schema: { amount: "int" },
      governance: [{ id: "pack.hard-limits", version: "2.0.0", requires: { api_version: "1" } }],
    });
    const small = await keel("run", doc, "--input", '{"amount":10}');
    expect(small.code).toBe(0);
    expect(pathsOf(small.out)).toEqual(["check>pay", "pay>end", "end>__end__"]);
    const big = await keel("run", doc, "--input", '{"amount":5000}');
    expect(big.code).toBe(0);
    expect(big.out.transitions).toEqual([
      {
        from: "check",
        to: "__end__",
        rule: "over-hard-limit",
        reason: "halt: over the hard limit",
      },
    ]);
  });
});
