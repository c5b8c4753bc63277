import type { ErrorDetail } from "../contracts/primitives.js";
import type { ToolCall, ToolResult } from "../contracts/tool-call.js";
import { autonomyFromDb, isoFromMs } from "../db/codec.js";
import type { RuntimeDb, ToolCallsTable } from "../db/tables.js";

/** A ledger row as the seed-003 ToolCall. */
export function toolCallFromRow(row: ToolCallsTable): ToolCall {
  return {
    tool_call_id: row.id,
    created_at: isoFromMs(Number(row.created_at)),
    trace_id: row.trace_id,
    task_id: row.task_id,
    step_id: row.step_id,
    event_id: row.event_id,
    connector_id: row.connector_id,
    tool_name: row.tool_name,
    action: row.action,
    request_hash: row.request_hash,
    idempotency_key: row.idempotency_key,
    status: row.status,
    latency_ms: row.latency_ms === null ? null : Number(row.latency_ms),
    risk_level: row.risk_level,
    autonomy_level: autonomyFromDb(row.autonomy_level),
  };
}

/** A ledger row's outcome as the seed-003 ToolResult, or null while it has none. */
export function toolResultFromRow(row: ToolCallsTable): ToolResult | null {
  if (row.result_status === null || row.response_hash === null || row.resolved_at === null) {
    return null;
  }
  return {
    tool_call_id: row.id,
    status: row.result_status,
    response_hash: row.response_hash,
    error: row.error_json === null ? null : (JSON.parse(row.error_json) as ErrorDetail),
    resolved_at: isoFromMs(Number(row.resolved_at)),
  };
}

/** A ledger row by id. */
export async function findCall(db: RuntimeDb, id: string): Promise<ToolCallsTable | undefined> {
  return db.selectFrom("state_tool_calls").selectAll().where("id", "=", id).executeTakeFirst();
}
