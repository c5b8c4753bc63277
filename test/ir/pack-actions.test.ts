/**
 * Governance packs that route: pack rules emit IR actions with `(ir-action <kind> …)`, and packs
 * can come from plugins (`plugin.json` `packs`), with the compatibility gate.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemorySaver } from "../../src/checkpoint/index.js";
import {
  compileDocument,
  type IRDocumentInput,
  IrValidationError,
  loadPluginPacks,
} from "../../src/ir/index.js";
import { discoverPlugins } from "../../src/store/index.js";

const doc: IRDocumentInput = {
  ir_version: "1.0.0",
  id: "graph:packs",
  nodes: [
    { id: "a", kind: "echo" },
    { id: "b", kind: "echo" },
    { id: "c", kind: "echo" },
    { id: "end", kind: "halt" },
  ],
  state_schema: { amount: "int" },
  governance: [{ id: "pack.policy" }],
};

async function run(pack: string, amount: number, extra: Partial<IRDocumentInput> = {}) {
  const compiled = await compileDocument(
    { ...doc, ...extra },
    { packs: { "pack.policy": { source: pack } }, checkpointer: new MemorySaver() },
  );
  const config = { configurable: { thread_id: `t-${Math.random()}` } };
  const out = await compiled.graph.invoke({ amount }, config);
  return { compiled, config, out, paths: transitionsOf(out) };
}

function transitionsOf(out: {
  __ir_transitions: { from: string; to: string; rule: string | null }[];
}) {
  return out.__ir_transitions.map((t) => `${t.from}>${t.to}${t.rule ? `(${t.rule})` : ""}`);
}

describe("(ir-action …) in pack rules", () => {
  it("goto, halt and retry route the run like document rules", async () => {
    const pack = `
      (defrule skip-b (node-id a) (amount ?x&:(> ?x 10)) => (ir-action goto c))
      (defrule stop (node-id c) (amount ?x&:(> ?x 100)) => (ir-action halt "too much"))
      (defrule again (node-id b) (amount 7) (not (seen-b)) => (assert (seen-b)) (ir-action retry b 0))`;
    expect((await run(pack, 5)).paths).toEqual(["a>b", "b>c", "c>end", "end>__end__"]);
    expect((await run(pack, 50)).paths).toEqual(["a>c(skip-b)", "c>end", "end>__end__"]);
    const halted = await run(pack, 500);
    expect(halted.paths).toEqual(["a>c(skip-b)", "c>__end__(stop)"]);
    expect(halted.out.__ir_transitions[1].reason).toBe("halt: too much");
    expect((await run(pack, 7)).paths).toEqual([
      "a>b",
      "b>b(again)",
      "b>c",
      "c>end",
      "end>__end__",
    ]);
  });

  it("parallel and interrupt take their optional arguments", async () => {
    const fan = await run(
      "(defrule fan (node-id a) => (ir-action parallel (create$ b c) end any))",
      1,
    );
    expect(fan.paths[0]).toBe("a>b,c(fan)");
    expect(fan.paths.at(-1)).toBe("end>__end__");

    const asked = await run(
      '(defrule ask (node-id a) => (ir-action interrupt "approve?" 60 "goto:c" "refunds.approve"))',
      1,
    );
    expect(asked.out.__interrupt__[0].value).toMatchObject({
      prompt: "approve?",
      timeout: 60,
      requested_capability: "refunds.approve",
      node: "a",
      rule: "ask",
    });
  });

  it("document rules outrank pack rules (declaration salience); the loser is recorded", async () => {
    const { out } = await run("(defrule pack-goto (node-id a) => (ir-action goto c))", 1, {
      // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
      rules: [{ id: "rule.doc", when: "(node-id a)", then: [{ kind: "goto", target: "b" }] }],
    });
    expect(out.__ir_transitions[0]).toMatchObject({
      from: "a",
      to: "b",
      rule: "rule.doc",
      overridden: [{ rule: "pack-goto", action: { kind: "goto", target: "c" } }],
    });
    // A pack rule that must win declares a higher salience.
    const first = await run(
      "(defrule pack-goto (declare (salience 1000)) (node-id a) => (ir-action goto c))",
      1,
      // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
      { rules: [{ id: "rule.doc", when: "(node-id a)", then: [{ kind: "goto", target: "b" }] }] },
    );
    expect(first.out.__ir_transitions[0]).toMatchObject({ to: "c", rule: "pack-goto" });
  });

  it("a bad call is a RULES_RUNTIME error naming the rule", async () => {
    for (const [call, says] of [
      ["(ir-action goto nowhere)", '"nowhere" is not a node'],
      ["(ir-action jump b)", "the kind must be goto, halt, retry, parallel or interrupt"],
      ["(ir-action retry b soon)", "backoff_ms"],
      ["(ir-action interrupt)", "prompt"],
    ] as const) {
      const error = await run(`(defrule bad (node-id a) => ${call})`, 1).catch((e: unknown) => e);
      expect(error, call).toMatchObject({ code: "RULES_RUNTIME" });
      expect((error as Error).message, call).toContain(says);
      expect((error as Error).message, call).toContain("bad");
    }
  });
});

describe("packs from plugins", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-plugin-packs-"));
  const plugin = (id: string, manifest: Record<string, unknown>, files: Record<string, string>) => {
    const folder = join(dir, id);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "plugin.json"),
      JSON.stringify({ id, version: "3.1.0", ...manifest }),
    );
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  };
  plugin(
    "policy",
    {
      packs: { "pack.policy": "policy.clp", "pack.escape": "../outside.clp", "pack.gone": "x.clp" },
    },
    { "policy.clp": '(defrule stop (node-id a) => (ir-action halt "plugin"))' },
  );
  plugin(
    "future",
    { api_version: "2", packs: { "pack.future": "f.clp" } },
    { "f.clp": "; version: 9.0.0\n" },
  );
  plugin("off", { packs: { "pack.off": "o.clp" } }, { "o.clp": "" });
  writeFileSync(join(dir, "outside.clp"), "");

  it("loads the packs of enabled plugins, inside their folder, with their versions", async () => {
    const packs = await loadPluginPacks(
      discoverPlugins(dir, { settings: { off: { enabled: false } } }),
    );
    expect(Object.keys(packs).sort()).toEqual(["pack.future", "pack.policy"]);
    expect(packs["pack.policy"]).toMatchObject({
      plugin: "policy",
      version: "3.1.0",
      apiVersion: "1",
    });
    expect(packs["pack.future"]).toMatchObject({ version: "9.0.0", apiVersion: "2" });

    const compiled = await compileDocument(doc, { packs });
    expect(transitionsOf(await compiled.graph.invoke({ amount: 1 }))).toEqual(["a>__end__(stop)"]);
  });

  it("refuses a pack of a plugin written for another api_version, and a pinned version it is not", async () => {
    const packs = await loadPluginPacks(discoverPlugins(dir));
    const error = await compileDocument(
      { ...doc, governance: [{ id: "pack.future" }, { id: "pack.policy", version: "1.0.0" }] },
      { packs },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IrValidationError);
    expect((error as IrValidationError).problems.map((p) => [p.code, p.path])).toEqual([
      ["pack_incompatible", "/governance/0/id"],
      ["pack_version_mismatch", "/governance/1/version"],
    ]);
  });
});
