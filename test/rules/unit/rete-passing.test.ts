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
});
