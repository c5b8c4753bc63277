import { describe, expect, it } from "vitest";
import { RuleEngine } from "../../../src/rules/index.js";
import { readForms } from "../../../src/rules/reader.js";

/**
 * Object patterns through the host API: what snapshots and explanations keep. (What they print
 * is compared with CLIPS 6.30 in the differential corpus: object-patterns, object-pattern-joins,
 * object-pattern-late-rule.)
 */
const PACK = `
(defclass ACCOUNT (is-a USER) (slot owner) (slot balance (default 0)) (slot flag))
(defrule overdrawn ?a <- (object (is-a ACCOUNT) (owner ?o) (balance ?b&:(< ?b 0)))
  => (printout t "overdrawn " ?o " " (instance-name ?a) crlf))
(defrule rich (object (is-a ACCOUNT) (owner ?o) (balance ?b&:(> ?b 100)))
  => (printout t "rich " ?o crlf))
`;

function command(engine: RuleEngine, text: string): void {
  for (const form of readForms(text)) engine.evalTopLevel(form, new Map());
}

describe("object patterns", () => {
  it("keep their activations and refraction across snapshot and restore", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    command(engine, "(make-instance a1 of ACCOUNT (owner ann) (balance -5))");
    command(engine, "(make-instance a2 of ACCOUNT (owner bob) (balance 500))");
    expect(engine.run(1).map((f) => f.rule)).toEqual(["rich"]);
    const saved = JSON.parse(JSON.stringify(engine.snapshot()));

    const restored = new RuleEngine();
    restored.restore(saved);
    expect(restored.agendaText()).toBe(engine.agendaText());
    // A slot no pattern names changes nothing; the fired activation stays fired.
    command(restored, "(send [a2] put-flag x)");
    expect(restored.agendaText()).toBe("0      overdrawn: [a1]\nFor a total of 1 activation.\n");
    // A slot a pattern names re-matches it: a2 is rich again.
    command(restored, "(send [a2] put-balance 600)");
    const fired = restored.run();
    expect(fired.map((f) => [f.rule, f.bindings.o])).toEqual([
      ["rich", "bob"],
      ["overdrawn", "ann"],
    ]);
    expect(restored.output).toContain("overdrawn ann [a1]\n");
  });

  it("a deleted instance takes its activations with it", () => {
    const engine = new RuleEngine();
    engine.load(PACK);
    engine.reset();
    command(engine, "(make-instance a1 of ACCOUNT (owner ann) (balance -5))");
    command(engine, "(unmake-instance [a1])");
    expect(engine.agendaText()).toBe("");
    expect(engine.run()).toEqual([]);
  });

  it("explain an instance match by the instance's name, never a fact index", () => {
    const engine = new RuleEngine();
    engine.load(`${PACK}
      (defrule flagged (logical (audit ?who)) ?a <- (object (is-a ACCOUNT) (owner ?who))
        => (assert (seen ?a)))
      (defrule noted (audit ?who) =>)`);
    engine.reset();
    command(engine, "(make-instance a1 of ACCOUNT (owner ann) (balance -5))");
    const audit = engine.assert("(audit ann)");
    expect(engine.agendaEntries().find((e) => e.rule === "flagged")).toMatchObject({
      facts: [audit, null],
      instances: ["a1"],
      bindings: { who: "ann", a: { instance: "a1" } },
    });
    const fired = engine.run();
    expect(fired.find((f) => f.rule === "flagged")).toEqual({
      rule: "flagged",
      facts: [audit],
      instances: ["a1"],
      bindings: { who: "ann", a: { instance: "a1" } },
    });
    // A rule without object patterns has no `instances`.
    expect(fired.find((f) => f.rule === "noted")).toEqual({
      rule: "noted",
      facts: [audit],
      bindings: { who: "ann" },
    });
    const restored = new RuleEngine();
    restored.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.explain()).toEqual(engine.explain());
  });
});
