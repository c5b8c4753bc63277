import type { ToolCallsTable } from "../db/tables.js";

/** Every column of `state_tool_calls` with its Postgres type, in insert order. */
const COLUMNS = [
  ["id", "text"],
  ["trace_id", "text"],
  ["task_id", "text"],
  ["step_id", "text"],
  ["event_id", "text"],
  ["connector_id", "text"],
  ["tool_name", "text"],
  ["tool_version", "text"],
  ["action", "text"],
  ["request_hash", "text"],
  ["request_artifact_id", "text"],
  ["idempotency_key", "text"],
  ["status", "text"],
  ["latency_ms", "bigint"],
  ["risk_level", "text"],
  ["autonomy_level", "text"],
  ["result_status", "text"],
  ["response_hash", "text"],
  ["result_artifact_id", "text"],
  ["error_json", "text"],
  ["created_at", "bigint"],
  ["updated_at", "bigint"],
  ["resolved_at", "bigint"],
  ["cost_estimate", "text"],
  ["lease_owner", "text"],
  ["lease_expires_at", "bigint"],
  ["request_json", "text"],
  ["live_key", "text"],
] as const satisfies readonly (readonly [keyof ToolCallsTable, "text" | "bigint"])[];

export const TOOL_CALL_COLUMNS = COLUMNS.map(([name]) => name);
export const TOOL_CALL_TYPES = COLUMNS.map(([, type]) => type);

/** A row's values in `TOOL_CALL_COLUMNS` order. */
export function toolCallValues(row: ToolCallsTable): (string | number | null)[] {
  return COLUMNS.map(([name]) => row[name]);
}

/**
 * What a status change may rewrite, with Postgres types; the rest of a ledger row never changes
 * after `attempted` is recorded.
 */
const MUTABLE = [
  ["status", "text"],
  ["latency_ms", "bigint"],
  ["result_status", "text"],
  ["response_hash", "text"],
  ["result_artifact_id", "text"],
  ["error_json", "text"],
  ["updated_at", "bigint"],
  ["resolved_at", "bigint"],
  // A status change ends the owner's lease (an outcome, or a doubt nobody holds yet).
  ["lease_expires_at", "bigint"],
] as const satisfies readonly (readonly [keyof ToolCallsTable, "text" | "bigint"])[];

export const MUTABLE_COLUMNS = MUTABLE.map(([name]) => name);
export const MUTABLE_TYPES = MUTABLE.map(([, type]) => type);

/**
 * What a move to `failed` adds to the SET list: the key is freed for a retry. Only then, since
 * SQLite rewrites an index for every column a SET names, changed or not.
 */
export const FREE_LIVE_KEY = ", live_key = NULL";

/** The row's mutable values in `MUTABLE_COLUMNS` order. */
export function mutableValues(row: ToolCallsTable): (string | number | null)[] {
  return MUTABLE.map(([name]) => row[name]);
}
