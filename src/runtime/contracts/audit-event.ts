import { z } from "zod";
import { AuditOutcome, AutonomyLevel, PipelineStage, RiskLevel } from "./enums.js";
import { DottedType, NonEmpty, NonNegativeInt, Timestamp, Uuid } from "./primitives.js";

/** The records an audit event is about. */
export const AuditRefs = z.strictObject({
  event_id: Uuid.nullable().default(null),
  task_id: Uuid.nullable().default(null),
  step_id: Uuid.nullable().default(null),
  tool_call_id: Uuid.nullable().default(null),
  approval_id: Uuid.nullable().default(null),
});
export type AuditRefs = z.output<typeof AuditRefs>;

/**
 * One entry of the audit log (seed 003, `AuditEvent`). The timestamp is set by the AuditWriter,
 * never by the caller; payloads are referenced by artifact id, never inlined.
 */
export const AuditEvent = z.strictObject({
  audit_id: Uuid,
  timestamp: Timestamp,
  trace_id: Uuid,
  stage: PipelineStage,
  refs: AuditRefs,
  type: DottedType,
  summary: NonEmpty,
  outcome: AuditOutcome,
  latency_ms: NonNegativeInt.nullable().default(null),
  tool_name: z.string().nullable().default(null),
  connector_id: z.string().nullable().default(null),
  risk_level: RiskLevel.nullable().default(null),
  autonomy_level: AutonomyLevel.nullable().default(null),
  payload_ref: z.string().nullable().default(null),
});
export type AuditEvent = z.output<typeof AuditEvent>;
export type AuditEventInput = z.input<typeof AuditEvent>;
