export {
  DEFAULT_GATE_POLICY,
  type DecideGateOptions,
  decideGate,
  GateDecision,
  type GateOutcome,
  GatePolicy,
  type GateTightening,
  parseGatePolicy,
  stricter,
  strictnessOf,
  validateGatePolicy,
} from "./gate-policy.js";
export { DEFAULT_APPROVAL_TTL_SECONDS, type GateSpecOptions, gateSpecsFor } from "./gate-specs.js";
export { type RandomSource, seededRandom, systemRandom } from "./random.js";
export { type PlanRetryOptions, planRetry, type RetryPlan, retryDelayMs } from "./retry.js";
export {
  allowedTransitions,
  assertTransition,
  canTransition,
  isTerminal,
  type StatusKind,
  type StatusOf,
  TRANSITIONS,
} from "./transitions.js";
