import { describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import {
  MessageEvent,
  Router,
  type RoutingConfigInput,
  validateContract,
  validateRoutingConfig,
} from "../../src/runtime/index.js";
import { messageEvent } from "./fixtures.js";
import { ManualClock } from "./support/clock.js";

function event(structured: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  const raw = messageEvent();
  return MessageEvent.parse({
    ...raw,
    ...overrides,
    content: { ...(raw.content as object), structured },
  });
}

const CONFIG: RoutingConfigInput = {
  fast_paths: [{ intent: "timer.set", handler: "timers" }],
  rules: [
    {
      id: "refund",
      when: '(intent "refund.issue")',
      intent: "refund.issue",
      handler: "refunds",
      risk_level: "medium",
      required_scopes: ["payments:refund"],
    },
    {
      id: "big-refund",
      when: '(intent "refund.issue") (field amount ?a&:(> ?a 100))',
      risk_level: "high",
      note: "refunds over 100 are high risk",
    },
    {
      id: "prod",
      when: '(field env "production")',
      gate: "confirm",
      note: "production needs a person",
    },
    { id: "loosen", when: '(field env "production")', gate: "allow", note: "tries to loosen" },
  ],
  default_handler: "inbox",
};

describe("routing", () => {
  const router = new Router(CONFIG, { clock: new ManualClock() });

  it("takes a fast path for an exact intent, and the decision is a valid contract", () => {
    const { decision, gate, handler } = router.decide(event({ intent: "timer.set" }), {
      autonomy: "A2",
    });
    expect(handler).toBe("timers");
    expect(gate.decision).toBe("allow");
    expect(decision.execution_mode).toBe("fast");
    expect(decision.match).toEqual({
      matched_fastpath: "timer.set",
      matched_rule_ids: [],
      used_llm: false,
    });
    expect(decision.confidence).toBeNull();
    expect(validateContract("RoutingDecision", decision).ok).toBe(true);
  });

  it("runs rules over the event's facts: risk is the highest, scopes the union", () => {
    const { decision, gate, handler } = router.decide(
      event({ intent: "refund.issue", amount: 250 }),
      { autonomy: "A2" },
    );
    expect(decision.match.matched_rule_ids).toEqual(["refund", "big-refund"]);
    expect(decision.risk_level).toBe("high");
    expect(decision.required_scopes).toEqual(["payments:refund"]);
    expect(handler).toBe("refunds");
    expect(gate.decision).toBe("confirm");
    expect(decision.execution_mode).toBe("gated");
    expect(decision.gates.map((g) => g.gate_type)).toEqual(["scope_check", "approval"]);
    expect(decision.notes).toContain("refunds over 100 are high risk");
  });

  it("a small refund is medium risk and previews at A2", () => {
    const { decision, gate } = router.decide(event({ intent: "refund.issue", amount: 20 }), {
      autonomy: "A2",
    });
    expect(decision.match.matched_rule_ids).toEqual(["refund"]);
    expect(gate.decision).toBe("preview");
    expect(decision.gates.map((g) => g.gate_type)).toEqual(["scope_check", "dryrun"]);
  });

  it("rules tighten a fast path's gate and never loosen it", () => {
    const { decision, gate } = router.decide(event({ intent: "timer.set", env: "production" }), {
      autonomy: "A4",
    });
    expect(gate.decision).toBe("confirm");
    expect(gate.refusedLoosenings.map((t) => t.ruleId)).toEqual([]);
    expect(decision.execution_mode).toBe("gated");
    // At A0 the policy already confirms low risk; the loosening rule is refused, not applied.
    const strict = router.decide(event({ intent: "timer.set", env: "production" }), {
      autonomy: "A0",
    });
    expect(strict.gate.decision).toBe("confirm");
    expect(strict.gate.refusedLoosenings.map((t) => t.ruleId)).toEqual(["loosen"]);
  });

  it("falls back to the default handler when nothing matches", () => {
    const { decision, handler } = router.decide(event({}), { autonomy: "A3" });
    expect(handler).toBe("inbox");
    expect(decision.execution_mode).toBe("task");
    expect(decision.notes).toContain("no fast path or rule matched");
  });

  it("is deterministic: the same event routes the same way every time", () => {
    const input = event({ intent: "refund.issue", amount: 250, env: "production" });
    const first = JSON.stringify(router.decide(input, { autonomy: "A3" }));
    for (let i = 0; i < 20; i++)
      expect(JSON.stringify(router.decide(input, { autonomy: "A3" }))).toBe(first);
  });

  it("refuses an invalid configuration, reporting every problem", () => {
    const result = validateRoutingConfig({
      fast_paths: [
        { intent: "a", handler: "h" },
        { intent: "a", handler: "h2" },
      ],
      rules: [
        { id: "x", when: "(a)", risk_level: "extreme" },
        { id: "x", when: "(b)", gate: "maybe" },
      ],
    });
    expect(result.ok).toBe(false);
    const paths = result.problems.map((p) => p.path).sort();
    expect(paths).toEqual([
      "/fast_paths/1/intent",
      "/rules/0/risk_level",
      "/rules/1/gate",
      "/rules/1/id",
    ]);
    let error: unknown;
    try {
      new Router({ rules: [{ id: "bad", when: "(a ?x&:(> ?x" }] });
    } catch (thrown) {
      error = thrown;
    }
    expect(isKeelError(error) && error.code).toBe("ROUTING_INVALID");
  });
});
