/**
 * Every rule evaluation is bounded (firings per run, loop iterations, working-memory size, wall
 * time): a rule that does not settle stops with RULES_LIMIT naming it. The explanation log keeps
 * the latest firings only.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_RULE_LIMITS, RuleEngine, runBatch } from "../../../src/rules/index.js";

function limited(limits: ConstructorParameters<typeof RuleEngine>[0]): RuleEngine {
  return new RuleEngine(limits);
}

const refused = (limit: string, rule: string) =>
  expect.objectContaining({
    code: "RULES_LIMIT",
    message: expect.stringContaining(`Rule ${rule}`),
    details: expect.objectContaining({ limit, rule }),
  });

describe("rule evaluation bounds", () => {
  it("a (while TRUE …) in a rule stops at maxLoopIterations, naming the rule", () => {
    const engine = limited({ limits: { maxLoopIterations: 1000 } });
    engine.load("(defrule spin (go) => (bind ?n 0) (while TRUE (bind ?n (+ ?n 1))))");
    engine.assert("(go)");
    expect(() => engine.run()).toThrow(refused("maxLoopIterations", "spin"));
  });

  it("a loop-for-count past the bound is refused before it starts", () => {
    const engine = limited({ limits: { maxLoopIterations: 1000 } });
    engine.load("(defrule count (go) => (loop-for-count (?i 1 1000000) (bind ?x ?i)))");
    engine.assert("(go)");
    expect(() => engine.run()).toThrow(refused("maxLoopIterations", "count"));
  });

  it("a rule that re-asserts what it retracts stops at maxFirings, naming it", () => {
    const engine = limited({ limits: { maxFirings: 500 } });
    engine.load("(defrule again ?f <- (tick) => (retract ?f) (assert (tick)))");
    engine.assert("(tick)");
    expect(() => engine.run()).toThrow(refused("maxFirings", "again"));
  });

  it("a rule that grows working memory stops at maxFacts, naming it", () => {
    const engine = limited({ limits: { maxFacts: 1000 } });
    engine.load("(defrule grow (n ?x) => (assert (n (+ ?x 1))))");
    engine.assert("(n 0)");
    expect(() => engine.run()).toThrow(refused("maxFacts", "grow"));
  });

  it("a rule that runs past maxRunMs stops, naming it", () => {
    const engine = limited({ limits: { maxRunMs: 20, maxLoopIterations: 1e12 } });
    engine.load("(defrule slow (go) => (while TRUE (bind ?x 1)))");
    engine.assert("(go)");
    expect(() => engine.run()).toThrow(refused("maxRunMs", "slow"));
  });

  it("the explanation log keeps only the latest firings", () => {
    const engine = limited({ limits: { maxFiringLog: 100 } });
    engine.load(
      "(defrule again ?f <- (tick ?n&:(< ?n 1000)) => (retract ?f) (assert (tick (+ ?n 1))))",
    );
    engine.assert("(tick 0)");
    expect(engine.run()).toHaveLength(1000);
    const log = engine.explain();
    expect(log.length).toBeLessThanOrEqual(100);
    expect(log.at(-1)?.bindings).toMatchObject({ n: 999 });
  });

  it("keel rules run's firings stay bounded; a top-level (while TRUE) stops", () => {
    const firings = runBatch(
      "(defrule again ?f <- (tick ?n&:(< ?n 30000)) => (retract ?f) (assert (tick (+ ?n 1))))\n(assert (tick 0))\n(run)\n(exit)",
    );
    expect(firings.error).toBeUndefined();
    expect(firings.firings.length).toBeLessThanOrEqual(DEFAULT_RULE_LIMITS.maxFiringLog);
    const endless = runBatch("(while TRUE (bind ?x 1))\n(exit)", {
      limits: { maxLoopIterations: 5000 },
    });
    expect(endless.error).toMatchObject({
      code: "RULES_LIMIT",
      details: expect.objectContaining({ limit: "maxLoopIterations" }),
    });
  });

  it("limits must be whole numbers of at least 1", () => {
    expect(() => new RuleEngine({ limits: { maxFirings: 0 } })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });
});
