import { describe, expect, it } from "vitest";
import { KeelError } from "../../../src/core/index.js";
import { RuleEngine, str, type Value } from "../../../src/rules/index.js";

const PACK = `
(deftemplate event (slot severity (type INTEGER) (default 0)) (slot source) (multislot tags))
(defrule alert (declare (salience 10)) ?e <- (event (severity ?s&:(>= ?s 4)) (source ?src))
  => (assert (alert ?src ?s)))
(defrule count-alerts (alert ?src ?s) => (printout t "alert " ?src " " ?s crlf))
`;

describe("RuleEngine", () => {
  it("asserts template facts, runs, and explains firings with facts and bindings", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    const id = engine.assert({ template: "event", slots: { severity: 5, source: "api" } });
    expect(id).toBe(1);
    const firings = engine.run();
    expect(firings.map((f) => f.rule)).toEqual(["alert", "count-alerts"]);
    expect(firings[0]).toEqual({
      rule: "alert",
      facts: [1],
      bindings: { e: { fact: 1 }, s: 5, src: "api" },
    });
    expect(engine.output).toBe("alert api 5\n");
    expect(engine.explain()).toHaveLength(2);
    expect(engine.facts().map((f) => f.text)).toEqual([
      "(initial-fact)",
      "(event (severity 5) (source api) (tags))",
      "(alert api 5)",
    ]);
  });

  it("suppresses duplicate facts and refires nothing (refraction)", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    engine.assert("(event (severity 4) (source cron))");
    expect(engine.assert("(event (severity 4) (source cron))")).toBeNull();
    expect(engine.run()).toHaveLength(2);
    expect(engine.run()).toHaveLength(0);
  });

  it("retracting a fact removes its activations; modify re-indexes; duplicate copies", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    const id = engine.assert({ template: "event", slots: { severity: 9, source: "a" } }) as number;
    expect(engine.agendaEntries().map((a) => a.rule)).toEqual(["alert"]);
    expect(engine.retract(id)).toBe(true);
    expect(engine.agendaEntries()).toEqual([]);
    const low = engine.assert({ template: "event", slots: { severity: 1, source: "b" } }) as number;
    const raised = engine.modify(low, { severity: 7 });
    expect(raised).toBe(low + 1);
    const copy = engine.duplicate(raised as number, { source: "c" });
    expect(copy).toBe(low + 2);
    expect(engine.agendaEntries().map((a) => [a.rule, a.facts])).toEqual([
      ["alert", [copy]],
      ["alert", [raised]],
    ]);
  });

  it("rejects values of the wrong slot type", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    expect(() => engine.assert({ template: "event", slots: { severity: "high" } })).toThrow(
      /expects INTEGER/,
    );
  });

  it("leaves the engine unchanged when a load fails", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    engine.assert({ template: "event", slots: { severity: 5, source: "x" } });
    const before = JSON.stringify(engine.snapshot());
    const bad = "(defrule fine (a) => )\n(defrule broken (event (nope ?x)) => )";
    const error = (() => {
      try {
        engine.load(bad);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(KeelError);
    expect((error as KeelError).message).toMatch(/line 2, column 24: slot 'nope'/);
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expect(engine.ruleNames()).toEqual(["alert", "count-alerts"]);
  });

  it("snapshots to plain JSON and restores agenda, refraction and counters", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    engine.assert({ template: "event", slots: { severity: 5, source: "x", tags: ["a", "b"] } });
    engine.assert({ template: "event", slots: { severity: 6, source: "y" } });
    engine.run(1);
    const snap = JSON.parse(JSON.stringify(engine.snapshot()));
    const restored = new RuleEngine();
    restored.restore(snap);
    expect(restored.facts()).toEqual(engine.facts());
    expect(restored.agendaEntries()).toEqual(engine.agendaEntries());
    expect(restored.run().map((f) => f.facts)).toEqual(engine.run().map((f) => f.facts));
    expect(restored.assert("(z)")).toBe(engine.assert("(z)"));
  });

  it("rules defined from TypeScript carry host actions; host functions are callable", () => {
    const engine = new RuleEngine({
      functions: { risk: (v: Value) => (typeof v === "number" ? v * 10 : 0) },
    });
    engine.load("(deftemplate call (slot tool) (slot amount))");
    engine.defineRule({
      name: "gate-payments",
      salience: 100,
      when: "(call (tool pay) (amount ?a&:(> (risk ?a) 500)))",
      actions: [{ kind: "require_approval", reason: "large payment" }],
    });
    engine.reset();
    engine.assert({ template: "call", slots: { tool: "pay", amount: 80 } });
    engine.assert({ template: "call", slots: { tool: "pay", amount: 20 } });
    const firings = engine.run();
    expect(firings).toEqual([
      {
        rule: "gate-payments",
        facts: [1],
        bindings: { a: 80 },
        actions: [{ kind: "require_approval", reason: "large payment" }],
      },
    ]);
  });

  it("keeps symbols and strings apart", () => {
    const engine = new RuleEngine();
    engine.load(
      '(defrule s (v "x") => (printout t "string" crlf))\n(defrule y (v x) => (printout t "symbol" crlf))',
    );
    engine.assert({ relation: "v", fields: [str("x")] });
    engine.run();
    expect(engine.output).toBe("string\n");
  });

  it("load refuses commands", () => {
    const engine = new RuleEngine();
    expect(() => engine.load("(reset)")).toThrow(
      /load accepts deftemplate, deffacts, defrule, deffunction, defglobal/,
    );
  });

  it("run(limit) and halt stop firing", () => {
    const engine = new RuleEngine();
    engine.load(
      "(defrule a (n ?x) => )\n(defrule stop (declare (salience 5)) (halt-now) => (halt))",
    );
    engine.assert("(n 1)");
    engine.assert("(n 2)");
    expect(engine.run(1)).toHaveLength(1);
    engine.assert("(halt-now)");
    expect(engine.run().map((f) => f.rule)).toEqual(["stop"]);
    expect(engine.run()).toHaveLength(1);
  });
  it("reads asserted fact text with literals and with expressions, strings and comments alike", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    const texts = [
      "(event (severity 7) (source api) (tags a b 2.5))",
      "  (event (source api) (severity -3))  ",
      "(event (severity (+ 1 2)) (source api))",
      '(event (severity 1) (source "api"))',
      "(event (severity 2) (source api)) ; a comment",
      "(point 1 2.0 x)",
      "(point 1 (+ 1 1) x)",
      "(point)",
    ];
    for (const text of texts) engine.assert(text);
    expect(engine.facts().map((f) => f.text)).toEqual([
      "(initial-fact)",
      "(event (severity 7) (source api) (tags a b 2.5))",
      "(event (severity -3) (source api) (tags))",
      "(event (severity 3) (source api) (tags))",
      '(event (severity 1) (source "api") (tags))',
      "(event (severity 2) (source api) (tags))",
      "(point 1 2.0 x)",
      "(point 1 2 x)",
      "(point)",
    ]);
    expect(() => engine.assert("(event (colour red))")).toThrow(/slot 'colour' is not in/);
    expect(() => engine.assert("(event (severity 1 2))")).toThrow(/takes one value/);
    expect(() => engine.assert("(event (severity x))")).toThrow(/expects INTEGER/);
  });

  it("reports each or-disjunct's bindings from its own patterns", () => {
    const engine = new RuleEngine();
    engine.load(
      "(defrule s (or (and (a ?x) (b ?y)) (and (c ?y) (d ?x))) (e ?x ?y) => (printout t ?x ?y crlf))",
    );
    engine.reset();
    for (const fact of ["(a 1)", "(b 2)", "(c 3)", "(d 4)", "(e 1 2)", "(e 4 3)"])
      engine.assert(fact);
    expect(engine.run().map((f) => [f.facts, f.bindings])).toEqual([
      [[3, 4, 6], { y: 3, x: 4 }],
      [[1, 2, 5], { x: 1, y: 2 }],
    ]);
    expect(engine.output).toBe("43\n12\n");
  });
});
