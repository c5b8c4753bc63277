import { KeelError } from "../../core/index.js";
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

/**
 * A row's values in `TOOL_CALL_COLUMNS` order, each property named (a test checks the order
 * against COLUMNS): a lookup by a varying name is megamorphic, and this runs once a call.
 */
export function toolCallValues(r: ToolCallsTable): (string | number | null)[] {
  return [
    r.id,
    r.trace_id,
    r.task_id,
    r.step_id,
    r.event_id,
    r.connector_id,
    r.tool_name,
    r.tool_version,
    r.action,
    r.request_hash,
    r.request_artifact_id,
    r.idempotency_key,
    r.status,
    r.latency_ms,
    r.risk_level,
    r.autonomy_level,
    r.result_status,
    r.response_hash,
    r.result_artifact_id,
    r.error_json,
    r.created_at,
    r.updated_at,
    r.resolved_at,
    r.cost_estimate,
    r.lease_owner,
    r.lease_expires_at,
    r.request_json,
    r.live_key,
  ];
}

/**
 * The columns every new (`attempted`) call writes the same: no outcome yet, and its request on
 * the row rather than in an artifact (`020_ledger_write_path.sql`). The SQLite insert writes them
 * into its text (`ATTEMPTED_CONSTANTS`) and binds only the rest (`attemptedValues`).
 */
const ATTEMPTED_FIXED: Partial<Record<keyof ToolCallsTable, string | null>> = {
  request_artifact_id: null,
  status: "attempted",
  latency_ms: null,
  result_status: null,
  response_hash: null,
  result_artifact_id: null,
  error_json: null,
  resolved_at: null,
};

/** `ATTEMPTED_FIXED` as SQL literals. */
export const ATTEMPTED_CONSTANTS: Partial<Record<keyof ToolCallsTable, string>> =
  Object.fromEntries(
    Object.entries(ATTEMPTED_FIXED).map(([column, value]) => [
      column,
      value === null ? "NULL" : `'${value}'`,
    ]),
  );

// Positions in `TOOL_CALL_COLUMNS` order: `toolCallValues` reads the row by name once, and a
// new call's values are picked from that list by index (no lookup by a varying name).
const FIXED_AT = TOOL_CALL_COLUMNS.flatMap((column, at) =>
  column in ATTEMPTED_FIXED ? [[at, ATTEMPTED_FIXED[column] ?? null] as const] : [],
);
const BOUND_AT = TOOL_CALL_COLUMNS.flatMap((column, at) => (column in ATTEMPTED_FIXED ? [] : [at]));

/**
 * A new call's values for the columns `ATTEMPTED_CONSTANTS` leaves to bind, in
 * `TOOL_CALL_COLUMNS` order; refuses a row that is not a new call's.
 */
export function attemptedValues(r: ToolCallsTable): (string | number | null)[] {
  const all = toolCallValues(r);
  for (const [at, value] of FIXED_AT) {
    if (all[at] !== value) {
      throw new KeelError("INTERNAL", `Tool call "${r.id}" is not a new call's row.`);
    }
  }
  return BOUND_AT.map((at) => all[at] as string | number | null);
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

/** The row's mutable values in `MUTABLE_COLUMNS` order (named, as `toolCallValues`). */
export function mutableValues(r: ToolCallsTable): (string | number | null)[] {
  return [
    r.status,
    r.latency_ms,
    r.result_status,
    r.response_hash,
    r.result_artifact_id,
    r.error_json,
    r.updated_at,
    r.resolved_at,
    r.lease_expires_at,
  ];
}
