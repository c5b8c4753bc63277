import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Command, MemorySaver } from "../../src/index.js";
import {
  assertMigratable,
  IrValidationError,
  resumeDocument,
  validate,
} from "../../src/ir/index.js";
import { type CompileDocumentOptions, compileDocument } from "../../src/ir/run/compile.js";
import type { Transition } from "../../src/ir/run/routing.js";
import { runRules } from "../../src/ir/run/rules-step.js";
import { RuleEngine } from "../../src/rules/index.js";

const triage = JSON.parse(
  readFileSync(new URL("../../examples/triage.json", import.meta.url), "utf8"),
);
const dspy = {
  dspy: () => (s: Record<string, unknown>) => ({ message: `classified: ${String(s.message)}` }),
};
const packs = { "pack.bosun.routing": { source: "", version: "1.0.0" } };
const THEN = "then";

const path = (out: { __ir_transitions: Transition[] }) =>
  out.__ir_transitions.map((t) => `${t.from}>${t.to}${t.rule ? `@${t.rule}` : ""}`);

function doc(extra: Record<string, unknown>) {
  return {
    ir_version: "1.0.0",
    id: "graph:test",
    nodes: [
      { id: "a", kind: "echo" },
      { id: "b", kind: "echo" },
      { id: "c", kind: "echo" },
      { id: "end", kind: "halt" },
    ],
    state_schema: { n: "int", flag: "bool", note: "str" },
    ...extra,
  };
}

async function compile(input: unknown, options: CompileDocumentOptions = {}) {
  return compileDocument(input, { nodeKinds: dspy, packs, ...options });
}

describe("running the seed's triage graph", () => {
  it("routes severity >= 4 to node_b once (refraction), then falls through to halt", async () => {
    const { graph } = await compile(triage);
    const out = await graph.invoke({ message: "disk full", severity: 5 });
    expect(path(out)).toEqual(["node_a>node_b@rule.escalate", "node_b>halt", "halt>__end__"]);
    expect(out.message).toBe("classified: disk full");
    expect(out.__ir_transitions[0]).toEqual({
      from: "node_a",
      to: "node_b",
      rule: "rule.escalate",
      reason: "goto",
    });
  });

  it("falls through in declaration order when no rule fires", async () => {
    const { graph } = await compile(triage);
    const out = await graph.invoke({ message: "typo", severity: 1 });
    expect(path(out)).toEqual(["node_a>node_b", "node_b>halt", "halt>__end__"]);
    expect(out.__ir_transitions[0].reason).toBe("no rule fired: fall through");
  });

  it("checkpoints carry the rules' state, not their firing history (nor another thread's)", async () => {
    const { graph } = await compile(triage, { checkpointer: new MemorySaver() });
    // The engine of a finished run is reused by the next: thread b must not see a's firings.
    for (const [thread, severity] of [
      ["a", 9],
      ["b", 5],
      ["c", 7],
    ] as const) {
      const out = await graph.invoke(
        { message: "m", severity },
        { configurable: { thread_id: thread } },
      );
      expect(path(out)[0]).toBe("node_a>node_b@rule.escalate");
    }
    for (const thread of ["a", "b", "c"]) {
      let withRules = 0;
      for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: thread } })) {
        const rules = (snapshot.values as { __ir?: { rules: { firings?: unknown[] } | null } }).__ir
          ?.rules;
        if (!rules) continue;
        withRules++;
        expect(rules.firings ?? []).toEqual([]);
      }
      expect(withRules).toBeGreaterThan(0);
    }
  });

  it("checks an input before a run: every problem, with a path into the input", async () => {
    const compiled = await compile(triage);
    expect(compiled.checkInput({ message: "m", severity: 5 })).toEqual([]);
    expect(
      compiled.checkInput({ severity: "high", __ir: {}, "a/b": 1 }).map((p) => [p.code, p.path]),
    ).toEqual([
      ["int_type", "/severity"],
      ["extra_forbidden", "/__ir"],
      ["extra_forbidden", "/a~1b"],
    ]);
    expect(compiled.checkInput(null)[0]).toMatchObject({ code: "dict_type", path: "/" });
    expect(compiled.checkInput({ severity: 1 }, "The answer")).toEqual([]);
  });

  it("refuses input and node output of the wrong type with a clear run error", async () => {
    const { graph } = await compile(triage);
    await expect(graph.invoke({ message: "x", severity: "high" })).rejects.toMatchObject({
      code: "IR_STATE_TYPE",
    });
    const bad = await compile(triage, { nodeKinds: { dspy: () => () => ({ severity: 4.5 }) } });
    await expect(bad.graph.invoke({ message: "x", severity: 5 })).rejects.toThrow(
      /State field "severity" from node "node_b" must be int; got 4.5/,
    );
  });
});

describe("compiling", () => {
  it("reports unknown node kinds, state types, packs and import failures as problems", async () => {
    const bad = doc({
      nodes: [
        { id: "a", kind: "dspy" },
        { id: "b", kind: "./fixtures/nodes/missing.mjs:x" },
        { id: "c", kind: "./fixtures/nodes/summarise.mjs:notAFunction" },
      ],
      state_schema: { n: "integer", when: "datetime" },
      governance: [{ id: "pack.nope" }],
    });
    try {
      await compileDocument(bad, { baseDir: new URL(".", import.meta.url).pathname });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IrValidationError);
      expect((error as IrValidationError).problems.map((p) => [p.code, p.path])).toEqual([
        ["unknown_state_type", "/state_schema/when"],
        ["unknown_node_kind", "/nodes/0/kind"],
        ["node_import_failed", "/nodes/1/kind"],
        ["node_import_failed", "/nodes/2/kind"],
        ["unknown_pack", "/governance/0/id"],
      ]);
    }
  });

  it("refuses an invalid document with its validation problems", async () => {
    const bad = doc({ rules: [{ id: "r", [THEN]: [{ kind: "goto", target: "nowhere" }] }] });
    await expect(compile(bad)).rejects.toMatchObject({ code: "IR_INVALID" });
  });

  it("builds the rules at compile time: a rule the engine refuses is a problem, not a run error", async () => {
    // Parses, but the engine refuses it when it builds the rule: ?y is bound by no pattern.
    const d = doc({ rules: [{ id: "r", when: "(n ?x)\n(test (> ?y 1))" }] });
    expect(validate(d)).toEqual([]);
    const refused = await compile(d).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IrValidationError);
    expect((refused as IrValidationError).problems).toEqual([
      expect.objectContaining({
        code: "rule_invalid",
        path: "/rules/0/when",
        message:
          "The rule's `when` is not valid CLIPS: line 2, column 10: variable ?y is not bound.",
      }),
    ]);
    const badPack = await compile(triage, {
      packs: { "pack.bosun.routing": { source: "(defrule x (a) => ", version: "1.0.0" } },
    }).catch((error: unknown) => error);
    expect((badPack as IrValidationError).problems).toEqual([
      expect.objectContaining({ code: "pack_invalid", path: "/governance/0" }),
    ]);
  });

  it("gates packs on their pinned version and requirements", async () => {
    const pinned = doc({ governance: [{ id: "p", version: "2.0.0" }] });
    await expect(
      compile(pinned, { packs: { p: { source: "", version: "1.0.0" } } }),
    ).rejects.toThrow(/version 1.0.0; the document pins 2.0.0/);
    const needs = doc({ governance: [{ id: "p", requires: { api_version: "9" } }] });
    await expect(compile(needs, { packs: { p: { source: "" } } })).rejects.toThrow(
      /requires plugin API 9/,
    );
  });

  it("runs user-code nodes named module/path:Export", async () => {
    const userDoc = doc({
      nodes: [{ id: "a", kind: "./fixtures/nodes/summarise.mjs:summarise" }],
      state_schema: { message: "str" },
    });
    const { graph } = await compileDocument(userDoc, {
      baseDir: new URL(".", import.meta.url).pathname,
    });
    expect((await graph.invoke({ message: "the report" })).message).toBe("summary of the report");
  });

  it("takes the state from a registered state class", async () => {
    const classDoc = doc({ state_schema: {}, state_class: "Ticket" });
    const stateClasses = { Ticket: z.object({ n: z.int(), flag: z.boolean() }) };
    const { graph } = await compile(classDoc, { stateClasses });
    expect((await graph.invoke({ n: 1, flag: true })).n).toBe(1);
    await expect(graph.invoke({ n: "1" })).rejects.toMatchObject({ code: "IR_STATE_TYPE" });
    await expect(compile(doc({ state_schema: {}, state_class: "Nope" }))).rejects.toThrow(
      IrValidationError,
    );
  });
});

describe("rules and actions", () => {
  it("records the losing actions when several rules fire; first declared wins", async () => {
    const d = doc({
      rules: [
        { id: "first", when: "(n ?n&:(> ?n 0))", [THEN]: [{ kind: "goto", target: "c" }] },
        {
          id: "second",
          when: "(flag TRUE)",
          [THEN]: [
            { kind: "retry", target: "b", backoff_ms: 5 },
            { kind: "parallel", targets: ["b", "c"], strategy: "any" },
          ],
        },
      ],
    });
    const out = await (await compile(d)).graph.invoke({ n: 1, flag: true });
    // The losing actions are recorded whole: kind, target and arguments.
    expect(out.__ir_transitions[0]).toEqual({
      from: "a",
      to: "c",
      rule: "first",
      reason: "goto",
      overridden: [
        { rule: "second", action: { kind: "retry", target: "b", backoff_ms: 5 } },
        {
          rule: "second",
          action: { kind: "parallel", targets: ["b", "c"], join: "", strategy: "any" },
        },
      ],
    });
  });

  it("halts with a reason", async () => {
    const d = doc({
      rules: [{ id: "stop", when: "(n 0)", [THEN]: [{ kind: "halt", reason: "nothing to do" }] }],
    });
    const out = await (await compile(d)).graph.invoke({ n: 0 });
    expect(path(out)).toEqual(["a>__end__@stop"]);
    expect(out.__ir_transitions[0].reason).toBe("halt: nothing to do");
  });

  it("asserts and retracts facts kept in the run, and rules match them", async () => {
    const d = doc({
      rules: [
        {
          id: "mark",
          when: "(node-id a)",
          [THEN]: [{ kind: "assert", fact: "seen", slots: '{"by":"a"}' }],
        },
        { id: "use", when: '(seen "a")', [THEN]: [{ kind: "goto", target: "c" }] },
        {
          id: "clear",
          when: "(node-id c)",
          [THEN]: [
            { kind: "retract", pattern: "(seen ?)" },
            { kind: "halt", reason: "cleared" },
          ],
        },
      ],
    });
    const out = await (await compile(d)).graph.invoke({ n: 1 });
    expect(path(out)).toEqual(["a>c@use", "c>__end__@clear"]);
  });

  it("retries a node while a rule says so (counted in the state)", async () => {
    let calls = 0;
    const d = doc({
      nodes: [
        { id: "work", kind: "flaky" },
        { id: "end", kind: "halt" },
      ],
      rules: [
        {
          id: "again",
          when: "(n ?n&:(< ?n 3))",
          [THEN]: [{ kind: "retry", target: "work", backoff_ms: 1 }],
        },
      ],
    });
    const flaky = () => () => ({ n: ++calls });
    const out = await (await compile(d, { nodeKinds: { flaky } })).graph.invoke({ n: 0 });
    expect(calls).toBe(3);
    expect(path(out)).toEqual(["work>work@again", "work>work@again", "work>end", "end>__end__"]);
  });

  it("treats arriving at a node again (retry) as a new event for rules keyed on the node", async () => {
    // The refund example's shape: the first send fails and is retried; the retried send
    // succeeds, and the rule keyed only on (node-id notify) must fire again to finish.
    let sends = 0;
    const d = doc({
      nodes: [
        { id: "notify", kind: "send" },
        { id: "escalate", kind: "echo" },
        { id: "done", kind: "halt" },
      ],
      rules: [
        {
          id: "notify-retry",
          when: "(node-id notify) (n ?n&:(> ?n 0))",
          [THEN]: [{ kind: "retry", target: "notify" }],
        },
        { id: "finish", when: "(node-id notify)", [THEN]: [{ kind: "goto", target: "done" }] },
      ],
    });
    const send = () => () => ({ n: sends++ === 0 ? 1 : 0 });
    const out = await (await compile(d, { nodeKinds: { send } })).graph.invoke({ n: 0 });
    expect(path(out)).toEqual(["notify>notify@notify-retry", "notify>done@finish", "done>__end__"]);
    // Nothing in the state changes between the arrivals: the node fact alone is the event.
    const same = doc({
      rules: [
        {
          id: "once",
          when: "(node-id a) (not (retried))",
          [THEN]: [
            { kind: "assert", fact: "retried" },
            { kind: "retry", target: "a" },
          ],
        },
        { id: "after", when: "(node-id a) (retried)", [THEN]: [{ kind: "goto", target: "c" }] },
      ],
    });
    const again = await (await compile(same)).graph.invoke({ n: 1 });
    expect(path(again)).toEqual(["a>a@once", "a>c@after", "c>end", "end>__end__"]);
  });

  it("refuses bad assert slots before a run (invalid_slots), and as RULES_RUNTIME if one slips by", async () => {
    for (const slots of ["{not json", "null"]) {
      const d = doc({
        rules: [
          { id: "mark", when: "(node-id a)", [THEN]: [{ kind: "assert", fact: "f", slots }] },
        ],
      });
      const refused = await compile(d).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(IrValidationError);
      expect((refused as IrValidationError).problems).toMatchObject([
        { code: "invalid_slots", path: "/rules/0/then/0/slots" },
      ]);
      // A rule defined behind validation's back (the engine takes any actions) still fails
      // with a coded error naming the rule, not an internal crash.
      const engine = new RuleEngine();
      engine.defineRule({
        name: "mark",
        when: "(go)",
        actions: [{ kind: "assert", fact: "f", slots }],
      });
      engine.reset();
      engine.assert("(go)");
      expect(() => runRules(engine)).toThrow(
        expect.objectContaining({
          code: "RULES_RUNTIME",
          message: expect.stringMatching(/^Rule mark:/),
        }),
      );
    }
  });

  it("pauses on interrupt and resumes with the answer as a state update", async () => {
    const d = doc({
      rules: [
        {
          id: "ask",
          when: "(node-id a)",
          [THEN]: [
            {
              kind: "interrupt",
              prompt: "Approve?",
              requested_capability: "ops:approve",
              interrupt_payload: { n: 1 },
            },
          ],
        },
      ],
    });
    const { graph } = await compile(d, { checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t1" } };
    const paused = await graph.invoke({ n: 1 }, config);
    expect(paused.__interrupt__[0].value).toMatchObject({
      prompt: "Approve?",
      requested_capability: "ops:approve",
      payload: { n: 1 },
      node: "a",
    });
    const done = await graph.invoke(
      new Command({ resume: { flag: true, note: "ok by Zoë" } }),
      config,
    );
    expect(done.flag).toBe(true);
    expect(path(done)).toEqual([
      "a>__ir_wait__@ask",
      "__ir_wait__>b@ask",
      "b>c",
      "c>end",
      "end>__end__",
    ]);
    await expect(
      (await compile(d, { checkpointer: new MemorySaver() })).graph
        .invoke({ n: 1 }, { configurable: { thread_id: "t2" } })
        .then(() => graphResumeBad(d)),
    ).rejects.toMatchObject({ code: "IR_STATE_TYPE" });
  });

  it("applies on_timeout when the answer comes after the deadline", async () => {
    const d = doc({
      rules: [
        {
          id: "ask",
          when: "(node-id a)",
          [THEN]: [{ kind: "interrupt", prompt: "Quick?", timeout: 0.001, on_timeout: "goto:c" }],
        },
      ],
    });
    const { graph } = await compile(d, { checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t3" } };
    await graph.invoke({ n: 1 }, config);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const done = await graph.invoke(new Command({ resume: {} }), config);
    expect(path(done)).toContain("__ir_wait__>c@ask");
  });
});

async function graphResumeBad(d: unknown) {
  const { graph } = await compile(d, { checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "t4" } };
  await graph.invoke({ n: 1 }, config);
  return graph.invoke(new Command({ resume: { n: "not an int" } }), config);
}

describe("parallel", () => {
  /** a fans out to x (ok), y (fails), z (ok) and any `more` branches, joined at c. */
  const fan = (strategy: string, join = "c", more: { id: string; kind: string }[] = []) =>
    doc({
      nodes: [
        { id: "a", kind: "echo" },
        { id: "x", kind: "put" },
        { id: "y", kind: "boom" },
        { id: "z", kind: "put" },
        ...more,
        { id: "c", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      rules: [
        {
          id: "fan",
          when: "(node-id a)",
          [THEN]: [
            {
              kind: "parallel",
              targets: ["x", "y", "z", ...more.map((n) => n.id)],
              join,
              strategy,
            },
          ],
        },
      ],
      state_schema: { n: "int", note: "str" },
    });
  const nodeKinds = {
    put: (node: { id: string }) => () => ({ note: node.id }),
    boom: () => () => {
      throw new Error("branch failed");
    },
  };

  it("any / quorum join the successful branches; all fails loudly", async () => {
    for (const strategy of ["any", "quorum", "race"]) {
      const out = await (await compile(fan(strategy), { nodeKinds })).graph.invoke({ n: 1 });
      expect(["x", "z"]).toContain(out.note);
      expect(path(out)).toContain("c>end");
    }
    await expect(
      (await compile(fan("all"), { nodeKinds })).graph.invoke({ n: 1 }),
    ).rejects.toMatchObject({
      code: "IR_PARALLEL_FAILED",
    });
  });

  it("race keeps the branch that finished first, whatever the target order", async () => {
    const delays: Record<string, number> = { x: 60, z: 0 };
    const timed = {
      ...nodeKinds,
      put: (node: { id: string }) => async () => {
        await new Promise((resolve) => setTimeout(resolve, delays[node.id] ?? 0));
        return { note: node.id };
      },
    };
    for (let round = 0; round < 3; round++) {
      const out = await (await compile(fan("race"), { nodeKinds: timed })).graph.invoke({ n: 1 });
      expect(out.note).toBe("z");
    }
  });

  it("any and quorum fail below their threshold", async () => {
    const failing = { ...nodeKinds, put: nodeKinds.boom };
    // any: no branch succeeded.
    await expect(
      (await compile(fan("any"), { nodeKinds: failing })).graph.invoke({ n: 1 }),
    ).rejects.toMatchObject({ code: "IR_PARALLEL_FAILED", details: { strategy: "any" } });
    // quorum: 1 of 3 is not more than half.
    const oneOfThree = {
      ...nodeKinds,
      put: (node: { id: string }) => (node.id === "x" ? () => ({ note: "x" }) : nodeKinds.boom()),
    };
    await expect(
      (await compile(fan("quorum"), { nodeKinds: oneOfThree })).graph.invoke({ n: 1 }),
    ).rejects.toMatchObject({ code: "IR_PARALLEL_FAILED", details: { strategy: "quorum" } });
    // quorum: 2 of 4 is not more than half either.
    const four = fan("quorum", "c", [{ id: "w", kind: "boom" }]);
    await expect((await compile(four, { nodeKinds })).graph.invoke({ n: 1 })).rejects.toMatchObject(
      {
        code: "IR_PARALLEL_FAILED",
        details: { strategy: "quorum" },
      },
    );
  });

  it("with an empty join continues after the block", async () => {
    const out = await (await compile(fan("any", ""), { nodeKinds })).graph.invoke({ n: 1 });
    expect(path(out)).toContain("__ir_join__>c");
  });
});

describe("resuming after the document changed", () => {
  const ask = (extra: Record<string, unknown> = {}) =>
    doc({
      rules: [{ id: "ask", when: "(node-id a)", [THEN]: [{ kind: "interrupt", prompt: "Go?" }] }],
      ...extra,
    });

  it("resumes on the same graph, refuses another hash, accepts it with a migrate chain", async () => {
    const saver = new MemorySaver();
    const original = await compile(ask(), { checkpointer: saver });
    for (const thread of ["same", "changed", "migrated"]) {
      await original.graph.invoke({ n: 1 }, { configurable: { thread_id: thread } });
    }
    const same = await resumeDocument(original, "same", { flag: true });
    expect(same.flag).toBe(true);

    const edited = await compile(ask({ id: "graph:edited" }), { checkpointer: saver });
    await expect(resumeDocument(edited, "changed", {})).rejects.toMatchObject({
      code: "IR_GRAPH_CHANGED",
    });

    const draft = await compile(ask({ id: "graph:edited" }), { checkpointer: saver });
    const middle = "f".repeat(64);
    const migrate = [
      { from_hash: original.graphHash, to_hash: middle },
      { from_hash: middle, to_hash: draft.graphHash },
    ];
    const migrated = await compile(ask({ id: "graph:edited", migrate }), { checkpointer: saver });
    expect(migrated.graphHash).toBe(draft.graphHash);
    expect((await resumeDocument(migrated, "migrated", { note: "moved" })).note).toBe("moved");
    expect(() =>
      assertMigratable(original.graphHash, draft.graphHash, migrate.slice(0, 1)),
    ).toThrow(/migrate list/);
    await expect(resumeDocument(original, "nobody", {})).rejects.toMatchObject({
      code: "CHECKPOINT_NOT_FOUND",
    });
  });
});

describe("top-level parallel blocks", () => {
  const put = (node: { id: string }) => () => ({ note: node.id });
  const boom = () => () => {
    throw new Error("branch failed");
  };
  const nodeKinds = { put, boom };
  const blockDoc = (extra: Record<string, unknown>) =>
    doc({
      nodes: [
        { id: "a", kind: "echo" },
        { id: "x", kind: "put" },
        { id: "y", kind: "put" },
        { id: "c", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      parallel: [{ targets: ["x", "y"], join: "c", strategy: "all" }],
      state_schema: { n: "int", note: "str" },
      ...extra,
    });
  const ask = (extra: Record<string, unknown> = {}) => ({
    id: "ask",
    when: "(node-id a)",
    [THEN]: [{ kind: "interrupt", prompt: "Go?", ...extra }],
  });

  it("fan out when the run arrives at the block's first target, then join", async () => {
    const out = await (await compile(blockDoc({}), { nodeKinds })).graph.invoke({ n: 1 });
    expect(path(out)).toEqual(["a>x,y", "x>c", "y>c", "c>end", "end>__end__"]);
    expect(out.__ir_transitions[0].reason).toBe(
      "no rule fired: fall through; into a parallel block (all)",
    );
  });

  it("fan out when the run starts at the block's first target", async () => {
    const d = blockDoc({});
    d.nodes = d.nodes.slice(1);
    const out = await (await compile(d, { nodeKinds })).graph.invoke({ n: 1 });
    expect(path(out)).toEqual(["__start__>x,y", "x>c", "y>c", "c>end", "end>__end__"]);
    await expect(
      (await compile(d, { nodeKinds })).graph.invoke({ n: "one" }),
    ).rejects.toMatchObject({ code: "IR_STATE_TYPE" });
  });

  it("fan out after an answered interrupt and after an on_timeout goto", async () => {
    const answered = await compile(blockDoc({ rules: [ask()] }), {
      nodeKinds,
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "answered" } };
    await answered.graph.invoke({ n: 1 }, config);
    const done = await answered.graph.invoke(new Command({ resume: { n: 2 } }), config);
    expect(path(done)).toEqual([
      "a>__ir_wait__@ask",
      "__ir_wait__>x,y@ask",
      "x>c",
      "y>c",
      "c>end",
      "end>__end__",
    ]);
    expect(done.n).toBe(2);

    const late = blockDoc({
      nodes: [
        { id: "a", kind: "echo" },
        { id: "b", kind: "echo" },
        { id: "x", kind: "put" },
        { id: "y", kind: "put" },
        { id: "c", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      rules: [ask({ timeout: 0.001, on_timeout: "goto:x" })],
    });
    const timed = await compile(late, { nodeKinds, checkpointer: new MemorySaver() });
    const lateConfig = { configurable: { thread_id: "late" } };
    await timed.graph.invoke({ n: 1 }, lateConfig);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const out = await timed.graph.invoke(new Command({ resume: {} }), lateConfig);
    expect(path(out)).toEqual([
      "a>__ir_wait__@ask",
      "__ir_wait__>x,y@ask",
      "x>c",
      "y>c",
      "c>end",
      "end>__end__",
    ]);
    expect(out.__ir_transitions[1].reason).toBe("interrupt timed out; into a parallel block (all)");
  });

  it("fan out again when a rule retries the block's first target", async () => {
    const d = blockDoc({
      rules: [
        {
          id: "again",
          when: "(node-id c) (not (searched-twice))",
          [THEN]: [
            { kind: "assert", fact: "searched-twice" },
            { kind: "retry", target: "x" },
          ],
        },
      ],
    });
    const out = await (await compile(d, { nodeKinds })).graph.invoke({ n: 1 });
    expect(path(out)).toEqual([
      "a>x,y",
      "x>c",
      "y>c",
      "c>x,y@again",
      "x>c",
      "y>c",
      "c>end",
      "end>__end__",
    ]);
  });

  it("join by any, race and quorum", async () => {
    const nodes = [
      { id: "x", kind: "put" },
      { id: "y", kind: "boom" },
      { id: "z", kind: "put" },
      { id: "c", kind: "echo" },
      { id: "end", kind: "halt" },
    ];
    for (const strategy of ["any", "race", "quorum"]) {
      const d = blockDoc({
        nodes,
        parallel: [{ targets: ["x", "y", "z"], join: "c", strategy }],
      });
      const out = await (await compile(d, { nodeKinds })).graph.invoke({ n: 1 });
      expect(["x", "z"]).toContain(out.note);
      expect(path(out)).toEqual(["__start__>x,y,z", "x>c", "y>c", "z>c", "c>end", "end>__end__"]);
    }
  });
});
