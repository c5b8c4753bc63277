import { z } from "zod";

/**
 * The seed-003 enumerations, with the seed's values exactly. Each is exported as a zod enum
 * (for validation and JSON Schema) and as the union type of its values.
 */

/** Where a MessageEvent came from. */
export const ChannelEnum = z.enum([
  "email",
  "sms",
  "webhook",
  "ha_event",
  "scheduler",
  "rule_engine",
  "watcher",
  "vision",
]);
export type Channel = z.output<typeof ChannelEnum>;

/** Who produced a MessageEvent. */
export const ActorType = z.enum(["user", "system", "integration"]);
export type ActorType = z.output<typeof ActorType>;

/** How sensitive an event's content is. */
export const Sensitivity = z.enum(["low", "med", "high"]);
export type Sensitivity = z.output<typeof Sensitivity>;

/** How a routed event is executed. */
export const ExecutionMode = z.enum(["fast", "task", "gated", "sandbox"]);
export type ExecutionMode = z.output<typeof ExecutionMode>;

/** How much harm an action can do. Ordered: each level is riskier than the one before. */
export const RiskLevel = z.enum(["low", "medium", "high", "critical"]);
export type RiskLevel = z.output<typeof RiskLevel>;

/** The higher of two risk levels (`low` < `medium` < `high` < `critical`). */
export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return RiskLevel.options.indexOf(b) > RiskLevel.options.indexOf(a) ? b : a;
}

/** What a gate asks for before an action runs. */
export const GateType = z.enum(["approval", "dryrun", "scope_check"]);
export type GateType = z.output<typeof GateType>;

/** A task's (a run's) lifecycle status. */
export const TaskStatus = z.enum([
  "pending",
  "running",
  "paused",
  "succeeded",
  "failed",
  "canceled",
]);
export type TaskStatus = z.output<typeof TaskStatus>;

/** A step's lifecycle status. */
export const StepStatus = z.enum(["pending", "running", "succeeded", "failed", "paused"]);
export type StepStatus = z.output<typeof StepStatus>;

/** How a failed step is retried. */
export const RetryStrategy = z.enum(["exponential", "fixed", "none"]);
export type RetryStrategy = z.output<typeof RetryStrategy>;

/** A tool call's ledger status. `unknown`: attempted, outcome never recorded. */
export const ToolCallStatus = z.enum(["attempted", "succeeded", "failed", "unknown"]);
export type ToolCallStatus = z.output<typeof ToolCallStatus>;

/** A tool result's status. */
export const ResultStatus = z.enum(["succeeded", "failed"]);
export type ResultStatus = z.output<typeof ResultStatus>;

/** The pipeline stage an audit event records. */
export const PipelineStage = z.enum([
  "normalize",
  "route",
  "execute",
  "tool_call",
  "gate",
  "operator",
  "scheduler",
  "watcher",
  "rule",
]);
export type PipelineStage = z.output<typeof PipelineStage>;

/** What an audited stage came to. */
export const AuditOutcome = z.enum(["success", "failure", "suppressed", "info"]);
export type AuditOutcome = z.output<typeof AuditOutcome>;

/** An approval's lifecycle status. */
export const ApprovalStatus = z.enum(["pending", "approved", "denied", "expired"]);
export type ApprovalStatus = z.output<typeof ApprovalStatus>;

/**
 * How much the agent may do on its own, from A0 (nothing without a person) to A4 (fully
 * autonomous). The seed names the type without listing its values; Keel uses A0–A4, ordered.
 */
export const AutonomyLevel = z.enum(["A0", "A1", "A2", "A3", "A4"]);
export type AutonomyLevel = z.output<typeof AutonomyLevel>;
