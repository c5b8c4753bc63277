import { z } from "zod";
import { KeelError } from "../../core/index.js";
import { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import { problemsFromZodIssues, type ValidationProblem } from "../validation/problems.js";

/**
 * What a gate decides for one action, from the loosest to the strictest:
 *
 * - `allow`: run it.
 * - `preview`: run it as a dry run first, record and show the preview, then run it for real
 *   without waiting (a tool that cannot dry-run is escalated to `confirm`).
 * - `confirm`: pause and ask a person (an Approval); run it once approved.
 * - `block`: refuse it.
 */
export const GateDecision = z.enum(["allow", "preview", "confirm", "block"]);
export type GateDecision = z.output<typeof GateDecision>;

const STRICTNESS: Record<GateDecision, number> = { allow: 0, preview: 1, confirm: 2, block: 3 };

/** How strict a decision is: 0 (`allow`) to 3 (`block`). */
export function strictnessOf(decision: GateDecision): number {
  return STRICTNESS[decision];
}

/** The stricter of two decisions. */
export function stricter(a: GateDecision, b: GateDecision): GateDecision {
  return STRICTNESS[b] > STRICTNESS[a] ? b : a;
}

/** One row of a gate policy: the decision for each risk level at one autonomy level. */
const GateRow = z.strictObject({
  low: GateDecision,
  medium: GateDecision,
  high: GateDecision,
  critical: GateDecision,
});

/**
 * A gate policy: for every autonomy level (A0–A4) and every risk level, a decision. A policy
 * must be monotone: more risk never gets a looser decision, more autonomy never a stricter one.
 */
export const GatePolicy = z
  .strictObject({ A0: GateRow, A1: GateRow, A2: GateRow, A3: GateRow, A4: GateRow })
  .superRefine((policy, ctx) => {
    for (const autonomy of AutonomyLevel.options) {
      RiskLevel.options.forEach((risk, index) => {
        const previous = RiskLevel.options[index - 1];
        if (previous === undefined) return;
        const here = policy[autonomy][risk];
        const before = policy[autonomy][previous];
        if (STRICTNESS[here] < STRICTNESS[before]) {
          ctx.addIssue({
            code: "custom",
            path: [autonomy, risk],
            message: `${autonomy}/${risk} (${here}) is looser than ${autonomy}/${previous} (${before}).`,
            input: here,
            params: {
              expected: `at least as strict as "${before}"`,
              hint: "More risk must never be gated more loosely.",
            },
          });
        }
      });
    }
    AutonomyLevel.options.forEach((autonomy, index) => {
      const previous = AutonomyLevel.options[index - 1];
      if (previous === undefined) return;
      for (const risk of RiskLevel.options) {
        const here = policy[autonomy][risk];
        const before = policy[previous][risk];
        if (STRICTNESS[here] > STRICTNESS[before]) {
          ctx.addIssue({
            code: "custom",
            path: [autonomy, risk],
            message: `${autonomy}/${risk} (${here}) is stricter than ${previous}/${risk} (${before}).`,
            input: here,
            params: {
              expected: `no stricter than "${before}"`,
              hint: "More autonomy must never be gated more strictly.",
            },
          });
        }
      }
    });
  });
export type GatePolicy = z.output<typeof GatePolicy>;

/**
 * Keel's default gate policy. Rows are autonomy levels, columns risk levels:
 *
 * | autonomy | low | medium | high | critical |
 * |---|---|---|---|---|
 * | A0 suggest only | confirm | confirm | block | block |
 * | A1 act with consent | preview | confirm | confirm | block |
 * | A2 act on low risk | allow | preview | confirm | block |
 * | A3 act up to medium risk | allow | allow | preview | confirm |
 * | A4 autonomous | allow | allow | allow | confirm |
 *
 * A critical action never runs without a person, at any autonomy level.
 */
export const DEFAULT_GATE_POLICY: GatePolicy = Object.freeze({
  A0: { low: "confirm", medium: "confirm", high: "block", critical: "block" },
  A1: { low: "preview", medium: "confirm", high: "confirm", critical: "block" },
  A2: { low: "allow", medium: "preview", high: "confirm", critical: "block" },
  A3: { low: "allow", medium: "allow", high: "preview", critical: "confirm" },
  A4: { low: "allow", medium: "allow", high: "allow", critical: "confirm" },
}) as GatePolicy;

/** Validates a configured gate policy, returning every problem (never throws). */
export function validateGatePolicy(
  value: unknown,
): { ok: true; value: GatePolicy } | { ok: false; problems: ValidationProblem[] } {
  const parsed = GatePolicy.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: problemsFromZodIssues(parsed.error.issues, value) };
}

/** Parses a configured gate policy or throws `GATE_POLICY_INVALID` listing every problem. */
export function parseGatePolicy(value: unknown): GatePolicy {
  const result = validateGatePolicy(value);
  if (result.ok) return result.value;
  throw new KeelError("GATE_POLICY_INVALID", "The gate policy is invalid.", {
    details: { problems: result.problems },
    hint: result.problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; "),
  });
}

/** A rule's demand on a gate: a decision at least this strict, and why. */
export interface GateTightening {
  ruleId: string;
  decision: GateDecision;
  reason: string;
}

/** Inputs of a gate decision. */
export interface DecideGateOptions {
  autonomy: AutonomyLevel;
  risk: RiskLevel;
  /** The policy; Keel's default when omitted. */
  policy?: GatePolicy;
  /** What matched rules demand. They may tighten the decision, never loosen it. */
  tightenings?: readonly GateTightening[];
}

/** A gate decision with its explanation. */
export interface GateOutcome {
  decision: GateDecision;
  /** The policy's decision before rules. */
  base: GateDecision;
  /** The rules that made the decision stricter than the policy's, in the order given. */
  tightenedBy: GateTightening[];
  /**
   * Rules that asked for a looser decision than the policy's. They are ignored, and reported so
   * they can be audited: a rule may never loosen a gate.
   */
  refusedLoosenings: GateTightening[];
  /** A sentence a person can read. */
  explanation: string;
}

/**
 * Decides the gate for an action: the policy's decision for (autonomy, risk), made stricter by
 * any rule that asks for more. The result is never looser than the policy.
 *
 * @example
 * decideGate({ autonomy: "A2", risk: "high" }).decision // "confirm"
 * decideGate({ autonomy: "A4", risk: "low", tightenings: [{ ruleId: "prod", decision: "confirm", reason: "production" }] }).decision // "confirm"
 */
export function decideGate(options: DecideGateOptions): GateOutcome {
  const policy = options.policy ?? DEFAULT_GATE_POLICY;
  const base = policy[options.autonomy][options.risk];
  let decision = base;
  const tightenedBy: GateTightening[] = [];
  const refusedLoosenings: GateTightening[] = [];
  for (const demand of options.tightenings ?? []) {
    if (STRICTNESS[demand.decision] < STRICTNESS[base]) {
      refusedLoosenings.push(demand);
      continue;
    }
    if (STRICTNESS[demand.decision] > STRICTNESS[base]) tightenedBy.push(demand);
    decision = stricter(decision, demand.decision);
  }
  const because =
    tightenedBy.length === 0
      ? `the policy gives "${base}" at autonomy ${options.autonomy} for ${options.risk} risk`
      : `rule ${tightenedBy.map((t) => `${t.ruleId} (${t.reason})`).join(", ")} tightened the policy's "${base}"`;
  return {
    decision,
    base,
    tightenedBy,
    refusedLoosenings,
    explanation: `${decision}: ${because}.`,
  };
}
