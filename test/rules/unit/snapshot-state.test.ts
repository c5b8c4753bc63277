/**
 * What a snapshot carries beyond constructs and facts: the current module, the module each
 * construct was defined in, and the rules' breakpoints.
 */
import { describe, expect, it } from "vitest";
import { RuleEngine } from "../../../src/rules/index.js";
import { readForms, type SNode } from "../../../src/rules/reader.js";

function engineWithOutput(): { engine: RuleEngine; output: () => string } {
  let text = "";
  const engine = new RuleEngine({ onPrint: (t) => (text += t) });
  return {
    engine,
    output: () => {
      const out = text;
      text = "";
      return out;
    },
  };
}

function command(engine: RuleEngine, source: string): void {
  engine.evalTopLevel(readForms(source)[0] as SNode, new Map());
}

function roundTrip(engine: RuleEngine): { engine: RuleEngine; output: () => string } {
  const copy = engineWithOutput();
  copy.engine.restore(JSON.parse(JSON.stringify(engine.snapshot())));
  return copy;
}

/**
 * Runs each step on the engine and on its restored copy (whose output so far is dropped) and
 * expects the same output from both; returns the copy's output, step by step.
 */
function sameSteps(
  original: { engine: RuleEngine; output: () => string },
  copy: { engine: RuleEngine; output: () => string },
  steps: readonly string[],
): string[] {
  original.output();
  return steps.map((step) => {
    command(original.engine, step);
    command(copy.engine, step);
    const out = copy.output();
    expect(out, step).toBe(original.output());
    return out;
  });
}

/**
 * Loads `program`, runs `(undeffunction *)` and restores a copy; each step prints the same in
 * both. The copy, for more checks.
 */
function sameAfterUndeffunctionAll(
  program: string,
  steps: readonly string[],
): { engine: RuleEngine; output: () => string } {
  const { engine, output } = engineWithOutput();
  engine.load(program);
  command(engine, "(undeffunction *)");
  const copy = roundTrip(engine);
  sameSteps({ engine, output }, copy, steps);
  return copy;
}

describe("snapshot and restore", () => {
  it("keep the current module and define each construct in the module it was defined in", () => {
    const { engine } = engineWithOutput();
    engine.load("(defmodule MAIN (export ?ALL)) (defmodule SIDE (import MAIN ?ALL))");
    command(engine, "(set-current-module MAIN)");
    engine.load("(deffunction twice (?x) (* 2 ?x))");
    command(engine, "(set-current-module SIDE)");
    const copy = roundTrip(engine);
    expect(copy.engine.currentModule).toBe("SIDE");
    command(copy.engine, "(set-current-module MAIN)");
    command(copy.engine, "(list-deffunctions)");
    expect(copy.output()).toBe("twice\nFor a total of 1 deffunction.\n");
  });

  it("keep each ordered fact's implied deftemplate in its module: (facts) stays scoped", () => {
    const { engine } = engineWithOutput();
    engine.load("(defmodule LEFT (export ?ALL))");
    command(engine, "(assert (b 1))");
    engine.load("(defmodule RIGHT (import LEFT ?ALL))");
    command(engine, "(assert (c 2))");
    const copy = roundTrip(engine);
    command(copy.engine, "(facts)");
    expect(copy.output()).toBe("f-1     (b 1)\nf-2     (c 2)\nFor a total of 2 facts.\n");
    // RIGHT sees LEFT's (b): the same fact again is a duplicate, as before the snapshot.
    command(copy.engine, "(assert (b 1))");
    command(copy.engine, "(facts LEFT)");
    expect(copy.output()).toBe("f-1     (b 1)\nFor a total of 1 fact.\n");
  });

  it("keep classes, instances and deffunctions of one name in two modules apart", () => {
    const { engine, output } = engineWithOutput();
    engine.load(
      "(defmodule LEFT (export ?ALL)) (defclass LEFT::A (is-a USER) (role concrete))" +
        " (deffunction LEFT::f () left) (definstances LEFT::start (l of A))" +
        " (defmodule RIGHT) (defclass RIGHT::A (is-a USER) (role concrete))" +
        " (deffunction RIGHT::f () right) (definstances RIGHT::start (r of A))" +
        " (defmodule VIEW (import LEFT ?ALL))",
    );
    engine.reset();
    command(engine, "(set-current-module VIEW)");
    const copy = roundTrip(engine);
    for (const e of [engine, copy.engine]) {
      command(e, "(instances *)");
      command(e, "(instances)");
      command(e, "(printout t (f) crlf)");
    }
    const text = output();
    expect(copy.output()).toBe(text);
    expect(text).toBe(
      "MAIN:\n   [initial-object] of INITIAL-OBJECT\nLEFT:\n   [l] of A\nRIGHT:\n   [r] of A\n" +
        "VIEW:\nFor a total of 3 instances.\n" +
        "[initial-object] of INITIAL-OBJECT\n[l] of LEFT::A\nFor a total of 2 instances.\nleft\n",
    );
  });

  it("keep the rules' breakpoints: a restored run stops before the rule as the original does", () => {
    const { engine } = engineWithOutput();
    engine.load("(defrule first => (assert (step))) (defrule second (step) =>)");
    engine.reset();
    command(engine, "(set-break second)");
    const copy = roundTrip(engine);
    command(copy.engine, "(show-breaks)");
    expect(copy.output()).toBe("second\n");
    expect(copy.engine.run().map((f) => f.rule)).toEqual(["first"]);
    expect(copy.output()).toBe("Breaking on rule second.\n");
  });

  it("restoring a snapshot without breakpoints drops those the engine had", () => {
    const { engine } = engineWithOutput();
    engine.load("(defrule only =>)");
    const saved = JSON.parse(JSON.stringify(engine.snapshot()));
    command(engine, "(set-break only)");
    engine.restore(saved);
    engine.reset();
    expect(engine.run().map((f) => f.rule)).toEqual(["only"]);
  });
  it("keep logical support: a restored engine retracts what loses its support, as the original does", () => {
    const { engine, output } = engineWithOutput();
    engine.load(`
      (defrule derive (logical (a ?x) (not (b ?x))) => (assert (derived ?x)))
      (defrule also (logical (a ?x)) (c) => (assert (derived ?x)))
      (defrule plain (a ?x) => (assert (kept ?x)))`);
    engine.reset();
    for (const fact of ["(a 1)", "(a 2)", "(c)"]) command(engine, `(assert ${fact})`);
    engine.run();
    const copy = roundTrip(engine);
    const steps = [
      "(dependencies 4)",
      "(dependents 1)",
      "(assert (b 1))",
      "(facts)",
      "(retract 1)",
      "(facts)",
      "(retract 2)",
      "(facts)",
    ];
    const last = sameSteps({ engine, output }, copy, steps).at(-1) ?? "";
    // Both supports of (derived 1) and the one of (derived 2) are gone: so are the facts.
    expect(last).toContain("(kept 1)");
    expect(last).not.toContain("derived");
  });
  it("keep logical support of and by instances, and the order rules sharing a match lose theirs", () => {
    const { engine, output } = engineWithOutput();
    engine.load(`
      (defclass P (is-a USER) (role concrete) (pattern-match reactive))
      (defrule by-fact (logical (a)) => (assert (b)))
      (defrule by-fact-2 (logical (a)) => (make-instance [q] of P))
      (defrule by-instance (logical (object (name [p]))) => (assert (c)))
      (defrule by-instance-2 (logical (object (name [p]))) => (make-instance [r] of P))`);
    engine.reset();
    command(engine, "(make-instance [p] of P)");
    command(engine, "(assert (a))");
    engine.run();
    const copy = roundTrip(engine);
    const look = ["(watch facts)", "(watch instances)", "(dependents [p])", "(dependencies [r])"];
    const change = ["(dependents 1)", "(send [p] delete)", "(retract 1)", "(instances)", "(facts)"];
    const all = sameSteps({ engine, output }, copy, [...look, ...change]).join("");
    // What CLIPS 6.30 prints for these steps.
    expect(all).toContain("[r],f-3\n[p]\n[q],f-2\n");
    expect(all).toContain("<== instance [r] of P\n<== f-3     (c)\n");
    expect(all).toContain("<== instance [q] of P\n<== f-2     (b)\n");
  });
  it("keep a deffunction (undeffunction *) left empty: listed, no text, its calls return FALSE", () => {
    const copy = sameAfterUndeffunctionAll(
      `(deffunction foo () (printout t Foo crlf) 1)
       (defmethod bar () (foo))`,
      ["(printout t (bar) crlf)", "(ppdeffunction foo)", "(list-deffunctions)"],
    );
    command(copy.engine, "(printout t (bar) crlf)");
    expect(copy.output()).toBe("FALSE\n");
  });
  it("keep an emptied deffunction of another module under its module", () => {
    const copy = sameAfterUndeffunctionAll(
      `(deffunction foo () 0)
       (defmodule B)
       (deffunction foo () (printout t Foo crlf) 1)
       (defmethod bar () (foo))`,
      ["(bar)", "(ppdeffunction B::foo)", "(list-deffunctions *)"],
    );
    command(copy.engine, "(list-deffunctions *)");
    expect(copy.output()).toBe("MAIN:\n   foo\nB:\n   foo\nFor a total of 2 deffunctions.\n");
  });
  it("keep a rule defined with incremental reset off: only the facts after it reach it", () => {
    const { engine, output } = engineWithOutput();
    command(engine, "(set-incremental-reset FALSE)");
    command(engine, "(assert (color red) (size 1))");
    engine.load("(defrule pair (color ?c) (size ?s) =>)");
    command(engine, "(assert (color blue))");
    const copy = roundTrip(engine);
    const steps = ["(agenda)", "(assert (size 2))", "(agenda)", "(reset)", "(agenda)"];
    sameSteps({ engine, output }, copy, steps);
    command(copy.engine, "(assert (color a) (size 3))");
    command(copy.engine, "(agenda)");
    expect(copy.output()).toBe("0      pair: f-1,f-2\nFor a total of 1 activation.\n");
  });
});
