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
});
