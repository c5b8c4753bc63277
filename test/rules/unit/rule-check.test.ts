import { describe, expect, it } from "vitest";
import { checkRules, RuleEngine, ruleProblem } from "../../../src/rules/index.js";

describe("checkRules", () => {
  it("returns every problem, placed within `when`, and parses the rest", () => {
    const check = checkRules([
      { name: "ok", salience: 3, when: "(severity ?s&:(>= ?s 4))\n(node-id a)" },
      { name: "unclosed", when: "(a 1)\n  (severity ?s" },
      { name: "extra", when: "(a 1))" },
      { name: "unknown-function", when: "(a 1)\n  (b ?x&:(foo ?x))" },
      { name: "not-a-pattern", when: "severity" },
      { name: "arrow", when: "(a 1) => (halt)" },
      { name: "empty", when: "" },
      { name: "host", when: "(a ?x&:(ir-action ?x))" },
    ]);
    expect(check.problems.map((p) => [p.index, p.rule, p.code, p.line, p.column])).toEqual([
      [1, "unclosed", "invalid", 2, 3],
      [2, "extra", "invalid", 1, 6],
      [3, "unknown-function", "invalid", 2, 10],
      [4, "not-a-pattern", "invalid", 1, 1],
      [5, "arrow", "actions_in_when", null, null],
      [7, "host", "invalid", 1, 8],
    ]);
    expect(check.problems[0]?.message).toBe("this '(' is never closed");
    expect(check.problems[2]?.message).toBe("unknown function 'foo'");
    expect(check.problems[2]?.hint).toContain("registerFunction");
    expect(check.rules.map((r) => r?.name ?? null)).toEqual([
      "ok",
      null,
      null,
      null,
      null,
      null,
      "empty",
      null,
    ]);
    expect(check.rules[0]?.salience).toBe(3);
  });

  it("accepts the host functions it is told about", () => {
    const check = checkRules([{ name: "host", when: "(a ?x&:(ir-action ?x))" }], {
      functions: ["ir-action"],
    });
    expect(check.problems).toEqual([]);
  });

  it("a `;` comment in `when` ends with its line", () => {
    const check = checkRules([{ name: "c", when: "(a 1) ; the first pattern\n(b 2)" }]);
    expect(check.problems).toEqual([]);
    const engine = new RuleEngine();
    engine.defineRule({ name: "c", when: "(a 1) ; the first pattern\n(b 2)" });
    engine.reset();
    engine.assert("(a 1)");
    engine.assert("(b 2)");
    expect(engine.run().map((f) => f.rule)).toEqual(["c"]);
  });

  it("a parsed rule defines in any number of engines without a second parse, same firings", () => {
    const definitions = [
      { name: "high", salience: 2, when: "(severity ?s&:(>= ?s 4))", actions: [{ go: "b" }] },
      {
        name: "any",
        salience: 1,
        when: "(severity ?s) (node-id ?n)",
        // biome-ignore lint/suspicious/noThenProperty: RuleDefinition's CLIPS actions.
        then: "(assert (seen ?n))",
      },
    ];
    const { rules, problems } = checkRules(definitions);
    expect(problems).toEqual([]);
    const fire = (define: (engine: RuleEngine) => void) => {
      const engine = new RuleEngine();
      define(engine);
      engine.reset();
      engine.assert("(severity 5)");
      engine.assert("(node-id a)");
      const firings = engine.run();
      return { firings, facts: engine.factsText(), snapshot: engine.snapshot() };
    };
    const fromText = fire((e) => {
      for (const d of definitions) e.defineRule(d);
    });
    for (let i = 0; i < 2; i++) {
      expect(
        fire((e) => {
          for (const r of rules) if (r) e.defineRule(r);
        }),
      ).toEqual(fromText);
    }
  });

  it("an engine that cannot take the parse as is parses the text again", () => {
    const [rule] = checkRules([{ name: "h", when: "(a ?x&:(check ?x))" }], {
      functions: ["check"],
    }).rules;
    if (!rule) throw new Error("expected a parsed rule");
    // Without the host function the rule refers to, the definition fails as text would.
    expect(() => new RuleEngine().defineRule(rule)).toThrow(/unknown function 'check'/);
    const engine = new RuleEngine({ functions: { check: () => true } });
    engine.defineRule(rule);
    engine.reset();
    engine.assert("(a 1)");
    expect(engine.run().map((f) => f.rule)).toEqual(["h"]);
    // With a template of the pattern's name, the text is parsed against the template.
    const templated = new RuleEngine({ functions: { check: () => true } });
    templated.load("(deftemplate a (slot v))");
    expect(() => templated.defineRule(rule)).toThrow(/RULES_PARSE|slot|template/i);
  });

  it("places the error of a definition the engine refused within `when`", () => {
    const def = { name: "r", salience: 7, when: "(n ?x)\n(test (> ?y 1))" };
    let problem: ReturnType<typeof ruleProblem> | undefined;
    try {
      new RuleEngine().defineRule(def);
    } catch (error) {
      problem = ruleProblem(error, def, 4);
    }
    expect(problem).toEqual({
      index: 4,
      rule: "r",
      code: "invalid",
      line: 2,
      column: 10,
      message: "variable ?y is not bound",
      hint: expect.stringContaining("Bind it"),
    });
  });
});

describe("checkRules and ?*globals*", () => {
  const def = { name: "over", when: "(amount ?a&:(> ?a ?*limit*))" };

  it("refuses a global nothing defines", () => {
    const check = checkRules([def]);
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]?.message).toContain("?*limit*");
  });

  it("knows the globals named, and those of defglobal constructs given with the templates", () => {
    expect(checkRules([def], { globals: ["limit"] }).problems).toEqual([]);
    expect(checkRules([def], { templates: "(defglobal ?*limit* = 10)" }).problems).toEqual([]);
  });

  it('with globals "any" accepts the rule, marks it not definable, and the engine checks it', () => {
    const check = checkRules([def], { globals: "any" });
    expect(check.problems).toEqual([]);
    const rule = check.rules[0];
    expect(rule?.definable).toBe(false);
    const engine = new RuleEngine();
    expect(() => engine.defineRule(rule as NonNullable<typeof rule>)).toThrow(/\?\*limit\*/);
    engine.load("(defglobal ?*limit* = 10)");
    engine.defineRule(rule as NonNullable<typeof rule>);
    engine.reset();
    engine.assert("(amount 11)");
    engine.assert("(amount 9)");
    expect(engine.run().map((f) => f.facts)).toEqual([[1]]);
  });
});

describe("checkRules and the names a query reads", () => {
  const facts = { name: "seen", when: "(go)\n(test (any-factp ((?f sighting)) TRUE))" };
  const objects = { name: "owned", when: "(go)\n(test (any-instancep ((?i CAR)) TRUE))" };

  it("a query's template or class the check cannot see: accepted, not definable, checked by the engine", () => {
    const check = checkRules([facts, objects]);
    expect(check.problems).toEqual([]);
    expect(check.rules.map((rule) => rule?.definable)).toEqual([false, false]);
    const engine = new RuleEngine();
    for (const rule of check.rules) {
      expect(() => engine.defineRule(rule as NonNullable<typeof rule>)).toThrow(
        /Unable to find (deftemplate sighting|class CAR)/,
      );
    }
    engine.load("(deftemplate sighting (slot what)) (defclass CAR (is-a USER))");
    for (const rule of check.rules) engine.defineRule(rule as NonNullable<typeof rule>);
    engine.reset();
    // A test CE is evaluated when the pattern before it matches: the sighting comes first.
    engine.assert("(sighting (what owl))");
    engine.assert("(go)");
    expect(engine.run().map((f) => f.rule)).toEqual(["seen"]);
  });

  it("a template given with the templates is known: the rule stays definable", () => {
    const check = checkRules([facts], { templates: "(deftemplate sighting (slot what))" });
    expect(check.problems).toEqual([]);
    expect(check.rules[0]?.definable).toBe(true);
  });
});
