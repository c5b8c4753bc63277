import { describe, expect, it } from "vitest";
import { RuleEngine } from "../../../src/rules/index.js";
import type { SList } from "../../../src/rules/reader.js";
import { readForms } from "../../../src/rules/reader.js";

const run = (engine: RuleEngine, text: string) =>
  engine.evalTopLevel(readForms(text)[0] as SList, new Map());

describe("undefclass in snapshots", () => {
  it("a class deleted with its subclass and handlers stays deleted after restore", () => {
    const engine = new RuleEngine();
    engine.load(
      [
        "(defclass A (is-a USER) (role concrete) (slot x))",
        "(defclass B (is-a A))",
        "(defmessage-handler B hi () 1)",
        "(defclass C (is-a USER) (role concrete))",
      ].join("\n"),
    );
    run(engine, "(undefclass A)");
    const copy = new RuleEngine();
    copy.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(run(copy, "(class-existp A)")).toBe("FALSE");
    expect(run(copy, "(class-existp B)")).toBe("FALSE");
    expect(run(copy, "(class-existp C)")).toBe("TRUE");
  });
});

describe("classes held by rules in snapshots", () => {
  it("a class a rule's object pattern matches stays held after restore, and freed with the rule", () => {
    const engine = new RuleEngine();
    engine.load(
      [
        "(defclass A (is-a USER) (role concrete) (slot x))",
        "(defrule r (object (is-a A) (x ?x)) =>)",
        "(defclass B (is-a USER) (role concrete))",
      ].join("\n"),
    );
    const copy = new RuleEngine();
    copy.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    run(copy, "(undefclass A)");
    expect(run(copy, "(class-existp A)")).toBe("TRUE");
    run(copy, "(undefclass B)");
    expect(run(copy, "(class-existp B)")).toBe("FALSE");
    run(copy, "(undefrule r)");
    run(copy, "(undefclass A)");
    expect(run(copy, "(class-existp A)")).toBe("FALSE");
  });
});
