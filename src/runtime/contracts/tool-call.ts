import { z } from "zod";
import { AutonomyLevel, ResultStatus, RiskLevel, ToolCallStatus } from "./enums.js";
import { ErrorDetail, NonEmpty, NonNegativeInt, Sha256, Timestamp, Uuid } from "./primitives.js";

/**
 * One call of a tool, as the ledger records it (seed 003, `ToolCall`). `idempotency_key` is
 * required, with no exceptions; `request_hash` is the sha256 of the redacted request.
 */
export const ToolCall = z.strictObject({
  tool_call_id: Uuid,
  created_at: Timestamp,
  trace_id: Uuid,
  task_id: Uuid.nullable().default(null),
  step_id: Uuid.nullable().default(null),
  event_id: Uuid.nullable().default(null),
  connector_id: NonEmpty,
  tool_name: NonEmpty,
  action: NonEmpty,
  request_hash: Sha256,
  idempotency_key: z.string().min(1),
  status: ToolCallStatus,
  latency_ms: NonNegativeInt.nullable().default(null),
  risk_level: RiskLevel,
  autonomy_level: AutonomyLevel,
});
export type ToolCall = z.output<typeof ToolCall>;
export type ToolCallInput = z.input<typeof ToolCall>;

/**
 * What a tool call came to (seed 003, `ToolResult`). The payload itself lives in the artifact
 * store; the result carries its hash.
 */
export const ToolResult = z.strictObject({
  tool_call_id: Uuid,
  status: ResultStatus,
  response_hash: Sha256,
  error: ErrorDetail.nullable().default(null),
  resolved_at: Timestamp,
});
export type ToolResult = z.output<typeof ToolResult>;
export type ToolResultInput = z.input<typeof ToolResult>;
