import { describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import { AutonomyLevel, RiskLevel } from "../../src/runtime/contracts/index.js";
import {
  DEFAULT_GATE_POLICY,
  decideGate,
  GateDecision,
  type GatePolicy,
  type GateTightening,
  gateSpecsFor,
  parseGatePolicy,
  type RandomSource,
  seededRandom,
  strictnessOf,
  validateGatePolicy,
} from "../../src/runtime/policy/index.js";

const DECISIONS = GateDecision.options;

function pick<T>(items: readonly T[], random: RandomSource): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A random monotone policy, built cell by cell within the bounds monotonicity allows. */
function randomMonotonePolicy(random: RandomSource): GatePolicy {
  const policy = {} as Record<string, Record<string, GateDecision>>;
  AutonomyLevel.options.forEach((autonomy, a) => {
    const row: Record<string, GateDecision> = {};
    RiskLevel.options.forEach((risk, r) => {
      const leftBound =
        r === 0 ? 0 : strictnessOf(row[RiskLevel.options[r - 1] as string] as GateDecision);
      const upperAutonomy = AutonomyLevel.options[a - 1];
      const upBound =
        upperAutonomy === undefined
          ? 3
          : strictnessOf(policy[upperAutonomy]?.[risk] as GateDecision);
      const low = leftBound;
      const high = Math.max(low, upBound);
      row[risk] = DECISIONS[low + Math.floor(random() * (high - low + 1))] as GateDecision;
    });
    policy[autonomy] = row;
  });
  return policy as unknown as GatePolicy;
}

function randomTightenings(random: RandomSource): GateTightening[] {
  return Array.from({ length: Math.floor(random() * 4) }, (_, i) => ({
    ruleId: `rule-${i}`,
    decision: pick(DECISIONS, random),
    reason: "random",
  }));
}

describe("gate policy", () => {
  it("has the documented default table", () => {
    expect(DEFAULT_GATE_POLICY).toEqual({
      A0: { low: "confirm", medium: "confirm", high: "block", critical: "block" },
      A1: { low: "preview", medium: "confirm", high: "confirm", critical: "block" },
      A2: { low: "allow", medium: "preview", high: "confirm", critical: "block" },
      A3: { low: "allow", medium: "allow", high: "preview", critical: "confirm" },
      A4: { low: "allow", medium: "allow", high: "allow", critical: "confirm" },
    });
    expect(validateGatePolicy(DEFAULT_GATE_POLICY).ok).toBe(true);
  });

  it("never allows a critical action by default, at any autonomy", () => {
    for (const autonomy of AutonomyLevel.options) {
      expect(decideGate({ autonomy, risk: "critical" }).decision).not.toBe("allow");
    }
  });

  it("is monotone: more risk never looser, more autonomy never stricter", () => {
    for (const autonomy of AutonomyLevel.options) {
      for (let r = 1; r < RiskLevel.options.length; r++) {
        const looser = decideGate({
          autonomy,
          risk: RiskLevel.options[r - 1] as RiskLevel,
        }).decision;
        const here = decideGate({ autonomy, risk: RiskLevel.options[r] as RiskLevel }).decision;
        expect(strictnessOf(here)).toBeGreaterThanOrEqual(strictnessOf(looser));
      }
    }
    for (const risk of RiskLevel.options) {
      for (let a = 1; a < AutonomyLevel.options.length; a++) {
        const before = decideGate({
          autonomy: AutonomyLevel.options[a - 1] as AutonomyLevel,
          risk,
        });
        const here = decideGate({ autonomy: AutonomyLevel.options[a] as AutonomyLevel, risk });
        expect(strictnessOf(here.decision)).toBeLessThanOrEqual(strictnessOf(before.decision));
      }
    }
  });

  it("lets one rule tighten but never loosen, for every autonomy × risk × demand", () => {
    for (const autonomy of AutonomyLevel.options) {
      for (const risk of RiskLevel.options) {
        const base = DEFAULT_GATE_POLICY[autonomy][risk];
        for (const demand of DECISIONS) {
          const tightening = { ruleId: "r1", decision: demand, reason: "because" };
          const outcome = decideGate({ autonomy, risk, tightenings: [tightening] });
          expect(outcome.base).toBe(base);
          const expected = strictnessOf(demand) > strictnessOf(base) ? demand : base;
          expect(outcome.decision).toBe(expected);
          expect(outcome.refusedLoosenings).toEqual(
            strictnessOf(demand) < strictnessOf(base) ? [tightening] : [],
          );
          expect(outcome.tightenedBy).toEqual(
            strictnessOf(demand) > strictnessOf(base) ? [tightening] : [],
          );
        }
      }
    }
  });

  it("never ends looser than the policy or than any rule's demand (2,000 random trials)", () => {
    const random = seededRandom(20261122);
    for (let trial = 0; trial < 2_000; trial++) {
      const policy = randomMonotonePolicy(random);
      expect(validateGatePolicy(policy).ok).toBe(true);
      const autonomy = pick(AutonomyLevel.options, random);
      const risk = pick(RiskLevel.options, random);
      const tightenings = randomTightenings(random);
      const outcome = decideGate({ autonomy, risk, policy, tightenings });
      const base = policy[autonomy][risk];
      expect(strictnessOf(outcome.decision)).toBeGreaterThanOrEqual(strictnessOf(base));
      const strongest = Math.max(
        strictnessOf(base),
        ...tightenings.map((t) => strictnessOf(t.decision)),
      );
      expect(strictnessOf(outcome.decision)).toBe(strongest);
      for (const refused of outcome.refusedLoosenings) {
        expect(strictnessOf(refused.decision)).toBeLessThan(strictnessOf(base));
      }
      // Adding a rule never makes the decision looser.
      const more = decideGate({
        autonomy,
        risk,
        policy,
        tightenings: [
          ...tightenings,
          { ruleId: "extra", decision: pick(DECISIONS, random), reason: "x" },
        ],
      });
      expect(strictnessOf(more.decision)).toBeGreaterThanOrEqual(strictnessOf(outcome.decision));
    }
  });

  it("accepts a configured policy and uses it", () => {
    // A stricter house policy: nothing above low risk runs without a person.
    const strict = parseGatePolicy({
      ...DEFAULT_GATE_POLICY,
      A2: { low: "allow", medium: "confirm", high: "confirm", critical: "block" },
      A3: { low: "allow", medium: "confirm", high: "confirm", critical: "confirm" },
      A4: { low: "allow", medium: "confirm", high: "confirm", critical: "confirm" },
    });
    expect(decideGate({ autonomy: "A4", risk: "medium", policy: strict }).decision).toBe("confirm");
    expect(decideGate({ autonomy: "A4", risk: "medium" }).decision).toBe("allow");
  });

  it("refuses a policy that loosens with more risk or tightens with more autonomy", () => {
    const result = validateGatePolicy({
      ...DEFAULT_GATE_POLICY,
      A2: { low: "allow", medium: "preview", high: "allow", critical: "block" },
      A3: { low: "preview", medium: "allow", high: "preview", critical: "confirm" },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const paths = result.problems.map((p) => p.path).sort();
      // A2/high loosens after medium; A3/high is then stricter than A2/high; A3/low is stricter
      // than A2/low; A3/medium loosens after A3/low.
      expect(paths).toEqual(["/A2/high", "/A3/high", "/A3/low", "/A3/medium"]);
      expect(result.problems.every((p) => p.hint.length > 0)).toBe(true);
    }
  });

  it("refuses a policy with missing cells, unknown keys or unknown decisions, all at once", () => {
    const result = validateGatePolicy({
      A0: DEFAULT_GATE_POLICY.A0,
      A1: { ...DEFAULT_GATE_POLICY.A1, extreme: "block" },
      A2: { ...DEFAULT_GATE_POLICY.A2, low: "maybe" },
      A3: DEFAULT_GATE_POLICY.A3,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems.map((p) => `${p.code} ${p.path}`).sort()).toEqual(
        ["literal_error /A2/low", "missing /A4", "extra_forbidden /A1/extreme"].sort(),
      );
    }
    let error: unknown;
    try {
      parseGatePolicy({});
    } catch (caught) {
      error = caught;
    }
    expect(isKeelError(error) && error.code).toBe("GATE_POLICY_INVALID");
  });

  it("explains the decision, naming the tightening rule", () => {
    expect(decideGate({ autonomy: "A2", risk: "high" }).explanation).toBe(
      'confirm: the policy gives "confirm" at autonomy A2 for high risk.',
    );
    const tightened = decideGate({
      autonomy: "A4",
      risk: "low",
      tightenings: [{ ruleId: "prod-freeze", decision: "block", reason: "change freeze" }],
    });
    expect(tightened.explanation).toBe(
      'block: rule prod-freeze (change freeze) tightened the policy\'s "allow".',
    );
  });

  it("turns decisions into the seed's gate specs", () => {
    expect(gateSpecsFor(decideGate({ autonomy: "A4", risk: "low" }))).toEqual([]);
    expect(gateSpecsFor(decideGate({ autonomy: "A2", risk: "high" }))).toEqual([
      expect.objectContaining({ gate_type: "approval", expires_in_seconds: 3600 }),
    ]);
    expect(
      gateSpecsFor(decideGate({ autonomy: "A1", risk: "low" }), {
        requiredScopes: ["calendar:write"],
        expiresInSeconds: 60,
      }).map((g) => [g.gate_type, g.expires_in_seconds]),
    ).toEqual([
      ["scope_check", 60],
      ["dryrun", 60],
    ]);
    expect(gateSpecsFor(decideGate({ autonomy: "A0", risk: "critical" }))).toEqual([]);
  });
});
