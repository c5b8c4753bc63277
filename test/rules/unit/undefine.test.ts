import { describe, expect, it } from "vitest";
import { RuleEngine } from "../../../src/rules/index.js";
import { readForms } from "../../../src/rules/reader.js";

function command(engine: RuleEngine, text: string): unknown {
  const [form] = readForms(text);
  if (!form) throw new Error("no form");
  return engine.evalTopLevel(form, new Map());
}

describe("undeffunction, undefglobal and undeffacts", () => {
  it("a deleted construct stays deleted after snapshot and restore", () => {
    const engine = new RuleEngine();
    engine.load(
      "(deffunction f () 1) (defglobal ?*a* = 1 ?*b* = 2) (deffacts d (x)) (deffacts e (y))",
    );
    command(engine, "(undeffunction f)");
    command(engine, "(undefglobal a)");
    command(engine, "(undeffacts d)");
    const restored = new RuleEngine();
    restored.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(() => command(restored, "(f)")).toThrow(/f/);
    // ?*b* shares its defglobal with the deleted ?*a*: it is still defined.
    expect(command(restored, "?*b*")).toBe(2);
    restored.reset();
    expect(restored.facts().map((f) => f.relation)).toEqual(["initial-fact", "y"]);
  });

  it("refuses a name that is not defined, with CLIPS's message", () => {
    const engine = new RuleEngine();
    expect(() => command(engine, "(undeffacts nope)")).toThrow(/unable to find deffacts nope/);
  });

  it("keeps a deffunction another construct calls and says so", () => {
    const printed: string[] = [];
    const engine = new RuleEngine({ onPrint: (t) => printed.push(t) });
    engine.load("(deffunction f () 1) (defrule r (go) => (f))");
    command(engine, "(undeffunction f)");
    expect(printed.join("")).toBe("[PRNTUTIL4] Unable to delete deffunction f.\n");
    expect(command(engine, "(f)")).toBe(1);
  });
});
