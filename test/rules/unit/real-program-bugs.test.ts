import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/rules/index.js";

/** The bugs real CLIPS programs found (issue 19); outputs recorded from CLIPS 6.30 `clips -f2`. */
describe("bugs found by real CLIPS programs", () => {
  it("binds a fact address inside each disjunct of an or", () => {
    const r = runBatch(
      [
        '(defrule r (or ?f <- (a ?x) ?f <- (b ?x)) => (printout t "got " ?x " " ?f crlf) (retract ?f))',
        "(assert (a 1) (b 2))",
        "(run)",
        "(facts)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.error).toBeUndefined();
    expect(r.output).toBe(
      "got 2 <Fact-2>\ngot 1 <Fact-1>\nf-0     (initial-fact)\nFor a total of 1 fact.\n",
    );
  });

  it("lists a not/exists holding only test CEs without a * in (agenda)", () => {
    const r = runBatch(
      [
        "(defrule r (a ?x) (not (test (> ?x 5))) => )",
        "(defrule s (a ?x) (exists (test (> ?x 0))) => )",
        "(assert (a 1))",
        "(agenda)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.output).toBe("0      r: f-1\n0      s: f-1\nFor a total of 2 activations.\n");
  });

  it("reports an unknown top-level form against itself, not the construct before it", () => {
    const r = runBatch("(defrule r (a) => )\n(frobnicate 3)\n(exit)");
    expect(r.error?.message).toContain("frobnicate");
    expect(r.error?.message).not.toContain("defrule r");
    expect(r.error?.details.line).toBe(2);
  });

  it("reads the old =(expr) form of a fact field on the right-hand side as the call's value", () => {
    const r = runBatch(
      [
        "(deftemplate s (slot d))",
        "(defrule r ?f <- (s (d ?n&:(< ?n 2))) => (duplicate ?f (d =(+ 1 ?n))) (assert (o =(* 2 ?n))))",
        "(assert (s (d 1)))",
        "(run)",
        "(facts)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.error).toBeUndefined();
    expect(r.output).toBe(
      "f-0     (initial-fact)\nf-1     (s (d 1))\nf-2     (s (d 2))\nf-3     (o 2)\nFor a total of 4 facts.\n",
    );
  });

  it("counts an activation removed after reset cleared the agenda only once", () => {
    const r = runBatch(
      [
        "(defmodule A (export ?ALL))",
        "(defrule A::ra => )",
        "(defmodule MAIN)",
        "(watch statistics)",
        "(reset)",
        "(focus A)",
        "(run)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.output).toContain("1 mean number of activations (1 maximum).");
  });
});
