import type { GateSpec } from "../contracts/routing-decision.js";
import type { GateOutcome } from "./gate-policy.js";

/** One hour: the default time a person has to decide an approval. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 3600;

/** Options of `gateSpecsFor`. */
export interface GateSpecOptions {
  /** Scopes the action requires; each adds a `scope_check` gate. */
  requiredScopes?: readonly string[];
  /** How long an approval or a preview stays valid; one hour by default. */
  expiresInSeconds?: number;
}

/**
 * The seed-003 gates a RoutingDecision carries for a gate outcome: `confirm` becomes an
 * `approval` gate, `preview` a `dryrun` gate, and every required scope a `scope_check`. `allow`
 * adds no gate; `block` adds none either, because a blocked action is refused, not gated.
 *
 * @example
 * gateSpecsFor(decideGate({ autonomy: "A2", risk: "high" }))
 * // [{ gate_type: "approval", reason: "confirm: the policy gives …", expires_in_seconds: 3600 }]
 */
export function gateSpecsFor(outcome: GateOutcome, options: GateSpecOptions = {}): GateSpec[] {
  const expires = options.expiresInSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  const gates: GateSpec[] = (options.requiredScopes ?? []).map((scope) => ({
    gate_type: "scope_check",
    reason: `requires scope "${scope}"`,
    expires_in_seconds: expires,
  }));
  if (outcome.decision === "confirm") {
    gates.push({ gate_type: "approval", reason: outcome.explanation, expires_in_seconds: expires });
  } else if (outcome.decision === "preview") {
    gates.push({ gate_type: "dryrun", reason: outcome.explanation, expires_in_seconds: expires });
  }
  return gates;
}
