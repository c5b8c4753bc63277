import { describe, expect, it } from "vitest";
import { CLIPS_BANNER, runBatch } from "../../../src/rules/index.js";

/** Outputs below were recorded from `clips -f2 file.clp < /dev/null` (CLIPS 6.30). */
describe("runBatch", () => {
  it("lists facts with (initial-fact) as f-0 after reset and suppresses duplicates", () => {
    const r = runBatch(
      '(reset)\n(assert (a 1))\n(assert (a 1))\n(assert (b "x y" 2.0))\n(facts)\n(exit)\n',
    );
    expect(r.output).toBe(
      'f-0     (initial-fact)\nf-1     (a 1)\nf-2     (b "x y" 2.0)\nFor a total of 3 facts.\n',
    );
    expect(r.facts.map((f) => f.id)).toEqual([0, 1, 2]);
  });

  it("orders activations of one assertion as CLIPS does and prints the agenda", () => {
    const source = [
      '(defrule ra (x ?v) => (printout t "ra" crlf))',
      '(defrule rb (x ?v) => (printout t "rb" crlf))',
      '(defrule rc (x ?v) (y ?w) => (printout t "rc" crlf))',
      '(defrule rd (y ?w) (x ?v) => (printout t "rd" crlf))',
      "(assert (y 1))",
      "(assert (x 2))",
      "(agenda)",
      "(run)",
      "(exit)",
    ].join("\n");
    expect(runBatch(source).output).toBe(
      "0      ra: f-2\n0      rb: f-2\n0      rc: f-2,f-1\n0      rd: f-1,f-2\nFor a total of 4 activations.\nra\nrb\nrc\nrd\n",
    );
  });

  it("fires by salience, then newest first, and records firings with bindings", () => {
    const r = runBatch(
      [
        "(deftemplate event (slot severity) (slot source))",
        '(defrule high (declare (salience 10)) (event (severity ?s&:(>= ?s 4)) (source ?src)) => (printout t "high " ?s " " ?src crlf))',
        '(defrule any (event (severity ?s)) => (printout t "any " ?s crlf))',
        "(assert (event (severity 5) (source api)))",
        "(assert (event (severity 2) (source cron)))",
        "(run)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.output).toBe("high 5 api\nany 2\nany 5\n");
    expect(r.firings[0]).toEqual({ rule: "high", facts: [1], bindings: { s: 5, src: "api" } });
  });

  it("prints floats, strings and multifields like CLIPS", () => {
    const r = runBatch(
      '(printout t (/ 4 2) " " (+ 1 2) " " (* 1.5 2) " " (div 7 2) " " (create$ a "b" 3) " " (str-cat "x" 1 y) crlf)\n(exit)\n',
    );
    expect(r.output).toBe('2.0 3 3.0 3 (a "b" 3) x1y\n');
  });

  it("handles not, exists, forall and or", () => {
    const r = runBatch(
      [
        '(defrule n (p ?x) (not (q ?x)) => (printout t "not " ?x crlf))',
        '(defrule e (exists (p ?)) => (printout t "exists" crlf))',
        '(defrule f (forall (p ?x) (q ?x)) => (printout t "forall" crlf))',
        '(defrule o (or (p ?x) (q ?x)) => (printout t "or " ?x crlf))',
        "(reset)",
        "(assert (p 1) (p 2) (q 2))",
        "(run)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.output.split("\n").sort()).toEqual(
      ["", "exists", "not 1", "or 1", "or 2", "or 2"].sort(),
    );
  });

  it("ends with the banner and prompt when the file has no (exit)", () => {
    expect(runBatch("(assert (a))\n").output).toBe(CLIPS_BANNER);
  });

  it("modify gives the fact a new index; duplicate keeps the original", () => {
    const r = runBatch(
      [
        "(deftemplate t (slot v (default 0)) (multislot tags))",
        "(defrule bump ?f <- (t (v 0)) => (modify ?f (v 1)) (duplicate ?f (v 2)))",
        "(reset)",
        "(assert (t))",
        "(run)",
        "(facts)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.output).toBe(
      "f-0     (initial-fact)\nf-2     (t (v 1) (tags))\nf-3     (t (v 2) (tags))\nFor a total of 3 facts.\n",
    );
  });
});

describe("runBatch errors", () => {
  it("reports unbalanced parentheses with line, column, what was expected and a hint", () => {
    const r = runBatch("(reset)\n(defrule r (a ?x)\n  => (printout t ?x crlf)\n");
    expect(r.error?.code).toBe("RULES_PARSE");
    expect(r.error?.message).toMatch(/line 2, column 1: expected '\)' but found end of input/);
    expect(r.error?.hint).toMatch(/never closed/);
    expect(r.output).toBe("");
  });

  it("reports an extra closing parenthesis", () => {
    const r = runBatch("(reset))\n");
    expect(r.error?.message).toMatch(/line 1, column 8/);
  });

  it("names an unknown function", () => {
    const r = runBatch("(defrule r (a ?x) => (frob ?x))\n(exit)\n");
    expect(r.error?.code).toBe("RULES_PARSE");
    expect(r.error?.message).toMatch(
      /unknown function 'frob'.*line 1|line 1.*unknown function 'frob'/,
    );
  });

  it("names an unbound right-hand-side variable", () => {
    const r = runBatch("(defrule r (a ?x) => (printout t ?y crlf))\n(exit)\n");
    expect(r.error?.message).toMatch(/\?y is not bound/);
    expect(r.error?.message).toMatch(/defrule r/);
  });

  it("names a slot that is not in the template", () => {
    const r = runBatch(
      "(deftemplate event (slot severity))\n(defrule r (event (priority ?p)) => )\n",
    );
    expect(r.error?.message).toMatch(/slot 'priority' is not in deftemplate 'event'/);
    expect(r.error?.message).toMatch(/line 2/);
  });

  it("names the rule and pattern of a non-numeric comparison", () => {
    const r = runBatch("(defrule big (x ?v&:(> ?v 3)) => )\n(assert (x abc))\n(exit)\n");
    expect(r.error?.code).toBe("RULES_RUNTIME");
    expect(r.error?.message).toMatch(
      /function > expected argument #1 to be of type integer or float/,
    );
    expect(r.error?.message).toMatch(/rule big, pattern #1/);
  });
});

describe("runBatch after an error", () => {
  const program =
    '(printout t "a" crlf)\n(+ x 1)\n(printout t "b" crlf)\n(nope)\n(printout t "c" crlf)\n(exit)\n';

  it("goes on as CLIPS does, printing CLIPS's message, and lists every error in order", () => {
    const r = runBatch(program);
    expect(r.output).toBe(
      "a\n[ARGACCES5] Function + expected argument #1 to be of type integer or float\nb\n\n[EXPRNPSR3] Missing function declaration for nope.\nc\n",
    );
    expect(r.errors.map((e) => e.code)).toEqual(["RULES_PARSE", "RULES_PARSE"]);
    expect(r.error).toBe(r.errors[0]);
  });

  it("stops at the first error with onError: 'stop', printing nothing for it", () => {
    const r = runBatch(program, { onError: "stop" });
    expect(r.output).toBe("a\n");
    expect(r.errors).toHaveLength(1);
  });

  it("always stops at a bound (RULES_LIMIT)", () => {
    const r = runBatch(
      '(defrule loop ?f <- (n ?x) => (retract ?f) (assert (n (+ ?x 1))))\n(assert (n 0))\n(run)\n(printout t "after" crlf)\n(exit)\n',
      { limits: { maxFirings: 5 } },
    );
    expect(r.error?.code).toBe("RULES_LIMIT");
    expect(r.output).not.toContain("after");
  });

  it("a failing pattern test is an error in the list, and the fact is still asserted", () => {
    const r = runBatch("(defrule big (x ?v&:(> ?v 3)) => )\n(assert (x abc))\n(facts)\n(exit)\n");
    expect(r.errors.map((e) => e.details.rule)).toEqual(["big"]);
    expect(r.output).toContain("[FACTMCH1] This error occurred in the fact pattern network");
    expect(r.output).toContain("f-1     (x abc)");
  });
});
