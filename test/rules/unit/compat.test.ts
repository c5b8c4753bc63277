/**
 * CLIPS-compatibility details of the engine's host API that the differential corpus cannot show
 * (it only sees printed output).
 */
import { describe, expect, it } from "vitest";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";

describe("names that are Object.prototype properties", () => {
  it("are ordinary slot, variable and symbol names in facts, bindings and printout", () => {
    const engine = new RuleEngine();
    engine.load(`
(deftemplate constructor (slot __proto__) (slot toString))
(defrule hasOwnProperty (constructor (__proto__ ?hasOwnProperty) (toString ?constructor))
  => (printout t ?hasOwnProperty " " ?constructor " " constructor " " valueOf crlf))`);
    engine.reset();
    engine.assert({ template: "constructor", slots: { toString: "valueOf" } });
    const [firing] = engine.run();
    expect(engine.output).toBe("nil valueOf constructor valueOf\n");
    // A variable name starts with a letter (CLIPS's scanner: ?__proto__ is ? then __proto__).
    expect(Object.hasOwn(firing?.bindings ?? {}, "hasOwnProperty")).toBe(true);
    expect(firing?.bindings).toEqual({ hasOwnProperty: "nil", constructor: "valueOf" });
    const fact = engine.facts()[1];
    expect(Object.hasOwn(fact?.slots ?? {}, "__proto__")).toBe(true);
    expect(JSON.stringify(fact?.slots)).toBe('{"__proto__":"nil","toString":"valueOf"}');
  });
});

/** The error a batch of one form stops at, with the message CLIPS prints for it. */
function batchError(form: string): { code: string | undefined; clips: unknown } {
  const { error } = runBatch(`${form}\n(exit)`);
  return { code: error?.code, clips: (error?.details as { clips?: unknown } | undefined)?.clips };
}

describe("function arguments as CLIPS 6.30 checks them", () => {
  it.each([
    "+",
    "-",
    "*",
    "/",
    "div",
    "<",
    "=",
    ">=",
    "<>",
    "max",
    "min",
    "eq",
    "neq",
    "and",
    "or",
  ])("(%s x) with one argument is refused at parse time with [ARGACCES4]", (fn) => {
    expect(batchError(`(printout t (${fn} 1) crlf)`)).toEqual({
      code: "RULES_PARSE",
      clips: `[ARGACCES4] Function ${fn} expected at least 2 argument(s)`,
    });
  });

  it("(str-cat) and (sym-cat) need an argument", () => {
    expect(batchError("(printout t (str-cat))").clips).toBe(
      "[ARGACCES4] Function str-cat expected at least 1 argument(s)",
    );
    expect(batchError("(printout t (sym-cat))").clips).toBe(
      "[ARGACCES4] Function sym-cat expected at least 1 argument(s)",
    );
  });

  it("str-cat of a multifield is a type error naming the argument", () => {
    expect(batchError("(printout t (str-cat x (create$ a b)))")).toEqual({
      code: "RULES_RUNTIME",
      clips:
        "[ARGACCES5] Function str-cat expected argument #2 to be of type string, instance name, symbol, float, or integer",
    });
  });

  it("length$ of a number names what it accepts", () => {
    expect(batchError("(printout t (length$ 1))").clips).toBe(
      "[ARGACCES5] Function length$ expected argument #1 to be of type multifield, symbol, or string",
    );
  });
});

describe("the batch runner reads forms as CLIPS does", () => {
  it("skips a stray ')' between forms as CLIPS does, going on after it, and lists it as an error", () => {
    const result = runBatch(
      '(printout t "before" crlf)\n(assert (a 1))\n(printout t "x" crlf))\n(printout t "after" crlf)\n(exit)\n',
    );
    expect(result.output).toBe("before\nx\nafter\n");
    expect(result.facts.map((f) => f.text)).toEqual(["(initial-fact)", "(a 1)"]);
    expect(result.error?.code).toBe("RULES_PARSE");
    expect(result.error?.message).toMatch(/^line 3, column 22: .*'\)'/);
  });
});

describe("the reader splits symbols as CLIPS's scanner does", () => {
  it("ends a token at '<' unless the token starts with it, in host fact text too", () => {
    const engine = new RuleEngine();
    engine.assert("(n 1<2 abc<<d e<f <= 1.5<x)");
    expect(engine.facts()[1]?.text).toBe("(n 1 <2 abc < <d e <f <= 1.5 <x)");
  });
});

describe("top-level commands", () => {
  it("each has its own variables: a bind does not outlive its command", () => {
    const result = runBatch(
      "(printout t (bind ?v 5) crlf)\n(printout t (+ (bind ?w 1) ?w) crlf)\n(printout t ?v crlf)\n(exit)",
    );
    expect(result.output).toBe("5\n2\n[EVALUATN1] Variable v is unbound\n");
    expect(result.error?.message).toMatch(/\?v is not bound/);
  });
});

describe("snapshot and restore keep the whole state", () => {
  it("gives each side of an or its own activation back, in the same order", () => {
    const engine = new RuleEngine();
    engine.load("(defrule c (x ?v) (or (y ?v) (y ?w)) => )");
    engine.reset();
    engine.assert("(x 1)");
    engine.assert("(y 1)");
    const restored = new RuleEngine();
    restored.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.agendaEntries().map((a) => a.bindings)).toEqual([{ v: 1 }, { v: 1, w: 1 }]);
    expect(restored.agendaEntries()).toEqual(engine.agendaEntries());
  });

  it("keeps the explanation log: explain() answers the same after a restore", () => {
    const engine = new RuleEngine();
    engine.load("(defrule a (x ?v) => (assert (y ?v)))");
    engine.reset();
    engine.assert("(x 1)");
    engine.run();
    const restored = new RuleEngine();
    restored.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.explain()).toEqual([{ rule: "a", facts: [1], bindings: { v: 1 } }]);
  });

  it("a failed load leaves explain() as it was", () => {
    const engine = new RuleEngine();
    engine.load("(deffacts d (x 1)) (defrule a (x ?v) => )");
    engine.reset();
    engine.run();
    expect(() => engine.load("(deffacts d (x 2)) (defrule b (x ?v) => (frobnicate))")).toThrow();
    expect(engine.explain()).toEqual([{ rule: "a", facts: [1], bindings: { v: 1 } }]);
  });

  it("forgetFirings() empties the log only: snapshots then carry the state without it", () => {
    const engine = new RuleEngine();
    engine.load("(defrule a (x ?v) => (assert (y ?v))) (defrule b (y ?v) (z) => )");
    engine.reset();
    engine.assert("(x 1)");
    engine.run();
    engine.forgetFirings();
    expect(engine.explain()).toEqual([]);
    const snapshot = engine.snapshot();
    expect(snapshot.firings).toEqual([]);
    expect(snapshot.facts.map((f) => f.relation)).toEqual(["initial-fact", "x", "y"]);
    const restored = new RuleEngine();
    restored.restore(JSON.parse(JSON.stringify(snapshot)));
    restored.assert("(z)");
    expect(restored.run().map((f) => f.rule)).toEqual(["b"]);
    expect(restored.explain()).toEqual([{ rule: "b", facts: [2, 3], bindings: { v: 1 } }]);
  });
});

describe("a host assert that fails while matching", () => {
  it("leaves working memory, the agenda and the next fact index unchanged", () => {
    const engine = new RuleEngine();
    engine.load(`
(defrule first (a ?x) => )
(defrule check (a ?x&:(> ?x 0)) => )`);
    engine.reset();
    engine.assert("(a 1)");
    const agenda = engine.agendaEntries();
    expect(() => engine.assert("(a abc)")).toThrow(/integer or float/);
    expect(engine.facts().map((f) => f.text)).toEqual(["(initial-fact)", "(a 1)"]);
    expect(engine.agendaEntries()).toEqual(agenda);
    expect(engine.assert("(a 2)")).toBe(2);
  });
});
