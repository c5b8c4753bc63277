import { describe, expect, it } from "vitest";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";

/** Construct errors whose effect on the engine the corpus transcripts do not show. */
describe("construct errors", () => {
  it("leaves no generic function behind when its first defmethod fails", () => {
    const r = runBatch(
      "(defmethod twice ((?n INTEGER)) (* 2 ?m))\n(deffunction twice (?n) (* 2 ?n))\n(printout t (twice 4) crlf)\n(exit)\n",
    );
    // CLIPS 6.30: the method's [PRCCODE3] (echo not built), then the deffunction is accepted.
    expect(r.output.startsWith("\n[PRCCODE3] Undefined variable m referenced in method.\n")).toBe(
      true,
    );
    expect(r.output.endsWith("8\n")).toBe(true);
  });

  it("keeps the globals a failing defglobal defined before its error", () => {
    const r = runBatch("(defglobal ?*a* = 1 ?*b* = (+ 1 x) ?*c* = 3)\n(show-defglobals)\n(exit)\n");
    // CLIPS 6.30: ?*a* stays defined; ?*b* and ?*c* never are.
    expect(r.output.endsWith("(defglobal MAIN ?*b* = (+ 1 x)\n?*a* = 1\n")).toBe(true);
  });

  it("checks a host's asserted values against the slot's range and allowed values", () => {
    const engine = new RuleEngine();
    engine.load("(deftemplate reading (slot level (range 0 10)) (slot unit (allowed-values c f)))");
    expect(() => engine.assert({ template: "reading", slots: { level: 12 } })).toThrow(
      /does not fall in the allowed range 0 to 10/,
    );
    expect(() => engine.assert({ template: "reading", slots: { level: 1, unit: "k" } })).toThrow(
      /does not match the allowed values/,
    );
    expect(engine.assert({ template: "reading", slots: { level: 1, unit: "c" } })).not.toBeNull();
  });
});
