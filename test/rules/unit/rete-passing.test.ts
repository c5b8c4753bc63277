import { describe, expect, it } from "vitest";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";

describe("not nodes that pass their token on", () => {
  it("(reset) reports every activation it removes, each pattern-less rule's included", () => {
    const out = runBatch(
      [
        '(defrule r1 => (printout t "r1" crlf))',
        '(defrule r2 => (printout t "r2" crlf))',
        '(defrule r3 (not (a)) => (printout t "r3" crlf))',
        "(watch activations)",
        "(reset)",
        "(exit)",
      ].join("\n"),
    ).output;
    const removed = out.split("\n").filter((l) => l.startsWith("<== Activation"));
    expect(removed.map((l) => l.split(/\s+/)[3]).sort()).toEqual(["r1:", "r2:", "r3:"]);
  });

  it("lists an activation's trailing not CEs as nulls (the token covers fewer CEs)", () => {
    const engine = new RuleEngine();
    engine.load("(defrule r (a ?x) (not (b ?x)) (not (c ?x)) => )");
    engine.reset();
    engine.assert("(a 1)");
    expect(engine.agendaEntries().map((a) => a.facts)).toEqual([[1, null, null]]);
    expect(engine.agendaText()).toBe("0      r: f-1,*,*\nFor a total of 1 activation.\n");
  });
  it("a not node reading its parent not node's memory blocks and frees in CLIPS's order", () => {
    // The second not compares ?x as the first does: it keeps no memory of its own, yet blocks
    // the tokens the first passed again (f-1, f-2, after (b 1) goes) as newest; r2 shares the
    // first not and is primed, so its own second not keeps a memory (CLIPS 6.30's output).
    const out = runBatch(
      [
        '(defrule r (a ?x ?y ?z) (not (b ?x)) (not (c ?x ?y)) => (printout t "r " ?x " " ?y " " ?z crlf))',
        "(watch activations)",
        "(reset)",
        "(assert (a 1 1 p) (a 1 1 q) (a 2 1 p))",
        "(assert (b 1))",
        "(assert (a 1 1 r) (a 1 1 s))",
        "(retract 4)",
        "(assert (c 1 1))",
        "(retract 7)",
        "(assert (c 1 1))",
        '(defrule r2 (a ?x ?y ?z) (not (b ?x)) (not (d ?x ?y)) => (printout t "r2 " ?x " " ?y " " ?z crlf))',
        "(assert (d 1 1))",
        "(retract 9)",
        "(matches r)",
        "(retract 1)",
        "(run)",
        "(exit)",
      ].join("\n"),
    ).output;
    const lines = out.split("\n").filter((l) => /^(<==|==>) Activation|^r2? /.test(l));
    expect(lines).toEqual([
      "==> Activation 0      r: f-1,*,*",
      "==> Activation 0      r: f-2,*,*",
      "==> Activation 0      r: f-3,*,*",
      "<== Activation 0      r: f-2,*,*",
      "<== Activation 0      r: f-1,*,*",
      "==> Activation 0      r: f-6,*,*",
      "==> Activation 0      r: f-5,*,*",
      "==> Activation 0      r: f-1,*,*",
      "==> Activation 0      r: f-2,*,*",
      "<== Activation 0      r: f-2,*,*",
      "<== Activation 0      r: f-1,*,*",
      "<== Activation 0      r: f-5,*,*",
      "<== Activation 0      r: f-6,*,*",
      "==> Activation 0      r: f-6,*,*",
      "==> Activation 0      r: f-5,*,*",
      "==> Activation 0      r: f-1,*,*",
      "==> Activation 0      r: f-2,*,*",
      "<== Activation 0      r: f-2,*,*",
      "<== Activation 0      r: f-1,*,*",
      "<== Activation 0      r: f-5,*,*",
      "<== Activation 0      r: f-6,*,*",
      "==> Activation 0      r2: f-2,*,*",
      "==> Activation 0      r2: f-1,*,*",
      "==> Activation 0      r2: f-5,*,*",
      "==> Activation 0      r2: f-6,*,*",
      "==> Activation 0      r2: f-3,*,*",
      "<== Activation 0      r2: f-6,*,*",
      "<== Activation 0      r2: f-5,*,*",
      "<== Activation 0      r2: f-1,*,*",
      "<== Activation 0      r2: f-2,*,*",
      "==> Activation 0      r2: f-2,*,*",
      "==> Activation 0      r2: f-1,*,*",
      "==> Activation 0      r2: f-5,*,*",
      "==> Activation 0      r2: f-6,*,*",
      "<== Activation 0      r2: f-1,*,*",
      "r2 1 1 s",
      "r2 1 1 r",
      "r2 1 1 q",
      "r2 2 1 p",
      "r 2 1 p",
    ]);
    expect(out).toContain("Partial matches for CEs 1 - 2\nf-2,*\nf-1,*\nf-5,*\nf-6,*\nf-3,*\n");
  });
});
