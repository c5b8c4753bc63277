import { z } from "zod";
import { ExecutionMode, GateType, RiskLevel } from "./enums.js";
import { NonEmpty, Timestamp, Uuid } from "./primitives.js";

/** A gate an action must pass before it runs. */
export const GateSpec = z.strictObject({
  gate_type: GateType,
  reason: NonEmpty,
  expires_in_seconds: z.int().min(1),
});
export type GateSpec = z.output<typeof GateSpec>;

/** What matched an event: a fast path, rules, or (only if a graph put one there) a model. */
export const RoutingMatch = z.strictObject({
  matched_fastpath: z.string().nullable().default(null),
  matched_rule_ids: z.array(NonEmpty).default([]),
  used_llm: z.boolean(),
});

/**
 * How an event was routed (seed 003, `RoutingDecision`): the execution mode, what matched, the
 * risk, the scopes required and the gates to pass, with a note a person can read.
 */
export const RoutingDecision = z.strictObject({
  trace_id: Uuid,
  event_id: Uuid,
  decided_at: Timestamp,
  execution_mode: ExecutionMode,
  match: RoutingMatch,
  intent: z.string().nullable().default(null),
  confidence: z.number().min(0).max(1).nullable().default(null),
  required_scopes: z.array(NonEmpty).default([]),
  risk_level: RiskLevel,
  gates: z.array(GateSpec).default([]),
  notes: z.string().nullable().default(null),
});
export type RoutingDecision = z.output<typeof RoutingDecision>;
export type RoutingDecisionInput = z.input<typeof RoutingDecision>;
