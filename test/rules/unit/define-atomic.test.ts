import { describe, expect, it } from "vitest";
import { KeelError } from "../../../src/core/index.js";
import { RuleEngine } from "../../../src/rules/index.js";

// Definitions are atomic without a snapshot per definition: a construct that fails takes back
// what it had built, and earlier constructs of the same load are undone. These tests check the
// engine is left as it was (its snapshot, and how it then matches and fires).

const BASE = `
(deftemplate event (slot severity (default 0)) (slot source))
(deffacts seed (event (severity 1) (source boot)))
(defrule alert (declare (salience 10)) (event (severity ?s&:(>= ?s 4)) (source ?src))
  => (assert (alert ?src ?s)))
(defrule any-event (event (source ?src)) => (assert (seen ?src)))
`;

function failure(fn: () => void): KeelError {
  try {
    fn();
  } catch (error) {
    return error as KeelError;
  }
  throw new Error("expected a failure");
}

/** An engine with BASE loaded, reset, two events asserted and one rule fired. */
function started(): RuleEngine {
  const engine = new RuleEngine();
  engine.load(BASE);
  engine.reset();
  engine.assert("(event (severity 5) (source api))");
  engine.assert("(event (severity 2) (source cron))");
  engine.run(1);
  return engine;
}

/** What an engine does from here on: the rest of its run, then a new event and a run. */
function future(engine: RuleEngine) {
  const first = engine.run().map((f) => [f.rule, f.facts]);
  engine.assert("(event (severity 7) (source web))");
  const second = engine.run().map((f) => [f.rule, f.facts]);
  return { first, second, facts: engine.factsText() };
}

/** The engine's agenda, and what it does from here on, are those of an engine just `started()`. */
function expectAsStarted(engine: RuleEngine): void {
  expect(engine.agendaEntries().map((a) => a.rule)).toEqual(
    started()
      .agendaEntries()
      .map((a) => a.rule),
  );
  expect(future(engine)).toEqual(future(started()));
}

describe("atomic definitions", () => {
  it("a rule that fails half-built (second pattern) leaves state and matching unchanged", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    const error = failure(() =>
      engine.defineRule({
        name: "broken",
        // The first pattern is shared with `alert`; the test reads a variable nothing binds.
        when: "(event (severity ?s&:(>= ?s 4)) (source ?src)) (event (source ?x&:(> ?y 1)))",
      }),
    );
    expect(error.code).toBe("RULES_PARSE");
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expect(engine.ruleNames()).toEqual(["alert", "any-event"]);
    expect(future(engine)).toEqual(future(started()));
  });

  it("an or whose second disjunct fails takes back the first (built, not yet primed)", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    const error = failure(() =>
      engine.defineRule({
        name: "broken-or",
        // The first disjunct is built (sharing alert's first pattern); the second reads ?y.
        when: "(or (event (severity ?s&:(>= ?s 4)) (source ?src)) (event (source ?x&:(> ?y 1))))",
      }),
    );
    expect(error.code).toBe("RULES_PARSE");
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expectAsStarted(engine);
  });

  it("a rule refused for its right-hand side leaves no activations behind", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    // Matches the events already asserted, then the right-hand side reads an unbound variable.
    const error = failure(() =>
      engine.load("(defrule late (event (source ?src)) => (assert (late ?z)))"),
    );
    expect(error).toBeInstanceOf(KeelError);
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expectAsStarted(engine);
  });

  it("a failed load undoes the templates, deffacts and rules it had defined", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    const error = failure(() =>
      engine.load(`
        (deftemplate extra (slot a))
        (deffacts more (extra (a 1)))
        (defrule uses-extra (extra (a ?a)) (event (source ?src)) => (assert (pair ?a ?src)))
        (defrule fine (event) => )
        (defrule broken (event (nope 1)) => )`),
    );
    expect(error.message).toMatch(/slot 'nope'/);
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expect(engine.ruleNames()).toEqual(["alert", "any-event"]);
    // The template is gone: asserting it as a template fact fails, as on an engine never given it.
    expect(() => engine.assert({ template: "extra", slots: { a: 1 } })).toThrow();
    engine.reset();
    const reference = new RuleEngine();
    reference.load(BASE);
    reference.reset();
    expect(engine.factsText()).toBe(reference.factsText());
  });

  it("a failed load that had replaced a rule puts the old rule back with its refraction", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    const error = failure(() =>
      engine.load(`
        (defrule alert (event (severity ?s&:(>= ?s 1))) => (assert (low ?s)))
        (deffacts seed (event (severity 9) (source other)))
        (defrule broken (event (source ?src&:(> ?q 1))) => )`),
    );
    expect(error.code).toBe("RULES_PARSE");
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expect(engine.ruleNames()).toEqual(["alert", "any-event"]);
    expect(future(engine)).toEqual(future(started()));
  });

  it("a failed load that had replaced a deffacts restores the old one", () => {
    const engine = started();
    failure(() =>
      engine.load(`
        (deffacts seed (event (severity 9) (source other)))
        (defrule broken (event (source ?src&:(> ?q 1))) => )`),
    );
    engine.reset();
    const reference = started();
    reference.reset();
    expect(engine.factsText()).toBe(reference.factsText());
  });

  it("a failed load that had replaced the first of two deffacts keeps their order", () => {
    const engine = new RuleEngine();
    engine.load("(deffacts one (a 1))\n(deffacts two (b 2))");
    failure(() => engine.load("(deffacts one (a 9))\n(defrule broken (c (nope 1)) => )"));
    engine.reset();
    expect(engine.facts().map((f) => f.text)).toEqual(["(initial-fact)", "(a 1)", "(b 2)"]);
  });

  it("replacing a rule the same load defined, then failing, leaves no trace of either", () => {
    const engine = started();
    const before = JSON.stringify(engine.snapshot());
    failure(() =>
      engine.load(`
        (defrule twice (event (source ?src)) => (assert (one ?src)))
        (defrule twice (event (severity ?s)) => (assert (two ?s)))
        (defrule broken (event (nope 1)) => )`),
    );
    expect(JSON.stringify(engine.snapshot())).toBe(before);
    expect(future(engine)).toEqual(future(started()));
  });

  it("defines thousands of rules one by one, each redefinable, in definition order", () => {
    const engine = new RuleEngine();
    for (let i = 0; i < 2_000; i++) {
      engine.defineRule({ name: `r${i}`, when: `(node-id n${i}) (severity ?s&:(>= ?s ${i % 5}))` });
    }
    engine.defineRule({ name: "r5", when: "(node-id n5)", actions: [{ kind: "goto" }] });
    const names = engine.ruleNames();
    expect(names).toHaveLength(2_000);
    expect(names.at(-1)).toBe("r5");
    const constructs = engine.snapshot().constructs;
    expect(constructs).toHaveLength(2_000);
    expect(constructs.at(-1)?.actions).toEqual([{ kind: "goto" }]);
    engine.reset();
    engine.assert("(node-id n5)");
    engine.assert("(severity 3)");
    expect(engine.run().map((f) => f.rule)).toEqual(["r5"]);
    engine.assert("(node-id n7)");
    expect(engine.run().map((f) => f.rule)).toEqual(["r7"]);
  });
});
