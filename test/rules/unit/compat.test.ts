/**
 * CLIPS-compatibility details of the engine's host API that the differential corpus cannot show
 * (it only sees printed output).
 */
import { describe, expect, it } from "vitest";
import { RuleEngine } from "../../../src/rules/index.js";

describe("names that are Object.prototype properties", () => {
  it("are ordinary slot, variable and symbol names in facts, bindings and printout", () => {
    const engine = new RuleEngine();
    engine.load(`
(deftemplate constructor (slot __proto__) (slot toString))
(defrule hasOwnProperty (constructor (__proto__ ?__proto__) (toString ?constructor))
  => (printout t ?__proto__ " " ?constructor " " constructor " " valueOf crlf))`);
    engine.reset();
    engine.assert({ template: "constructor", slots: { toString: "valueOf" } });
    const [firing] = engine.run();
    expect(engine.output).toBe("nil valueOf constructor valueOf\n");
    expect(Object.hasOwn(firing?.bindings ?? {}, "__proto__")).toBe(true);
    expect(firing?.bindings).toEqual(JSON.parse('{"__proto__":"nil","constructor":"valueOf"}'));
    const fact = engine.facts()[1];
    expect(Object.hasOwn(fact?.slots ?? {}, "__proto__")).toBe(true);
    expect(JSON.stringify(fact?.slots)).toBe('{"__proto__":"nil","toString":"valueOf"}');
  });
});
