import type { Store } from "../../store/index.js";
import { getArtifact } from "../artifacts/artifact-store.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import type { ToolCall, ToolResult } from "../contracts/tool-call.js";
import { type RuntimeDb, runtimeDb } from "../db/tables.js";
import { leaseLapsed } from "./call-lease.js";
import { toolCallFromRow, toolResultFromRow } from "./ledger-rows.js";
import type { ToolLedger } from "./tool-ledger.js";

/** Which ledger entries `keel ledger list` shows. */
export interface ToolCallFilter {
  /** One status, or every status (`undefined`). */
  status?: ToolCallStatus;
  traceId?: string;
  runId?: string;
  limit: number;
}

/** A recorded call and its result, as the ledger answers them. */
export interface LedgerEntry {
  toolCall: ToolCall;
  result: ToolResult | null;
}

/**
 * The ledger's calls matching `filter`, newest first, in one query, each row read as
 * `ToolLedger.get` reads it (`toolCallFromRow`, `toolResultFromRow`). SQLite plans with the
 * status bound, so a lookup of calls in doubt meets the partial status index (`status =
 * 'unknown'`, migration 020) as it is.
 */
export async function listToolCalls(store: Store, filter: ToolCallFilter): Promise<LedgerEntry[]> {
  let query = runtimeDb(store).selectFrom("state_tool_calls").selectAll();
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.traceId !== undefined) query = query.where("trace_id", "=", filter.traceId);
  if (filter.runId !== undefined) query = query.where("task_id", "=", filter.runId);
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(filter.limit)
    .execute();
  return rows.map((row) => ({ toolCall: toolCallFromRow(row), result: toolResultFromRow(row) }));
}

/**
 * The calls left `attempted` whose lease lapsed: their process died (or froze) before recording
 * an outcome. Nothing settles them until their run is recovered (`keel runs recover`), which
 * marks them `unknown` for an operator. A call whose owner still holds its lease is in flight
 * and not listed. Newest first.
 */
export async function listLapsedCalls(
  store: Store,
  filter: Omit<ToolCallFilter, "status">,
  now = Date.now(),
): Promise<LedgerEntry[]> {
  let query = runtimeDb(store)
    .selectFrom("state_tool_calls")
    .selectAll()
    .where("status", "=", "attempted");
  if (filter.traceId !== undefined) query = query.where("trace_id", "=", filter.traceId);
  if (filter.runId !== undefined) query = query.where("task_id", "=", filter.runId);
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows
    .filter((row) => leaseLapsed(row, now))
    .slice(0, filter.limit)
    .map((row) => ({ toolCall: toolCallFromRow(row), result: null }));
}

/** What `keel ledger show` prints: the call, its result, the request and the answer recorded. */
export interface LedgerDetail extends LedgerEntry {
  /** The request as the ledger stored it (redacted: `{tool, version, action, input}`). */
  request: unknown;
  /** The tool's output (succeeded) or the error recorded (failed); null while it has none. */
  response: unknown;
}

/** One call with its request and response artifacts; TOOL_CALL_NOT_FOUND for an unknown id. */
export async function toolCallDetail(
  store: Store,
  ledger: ToolLedger,
  toolCallId: string,
): Promise<LedgerDetail> {
  const entry = await ledger.get(toolCallId);
  const db = runtimeDb(store);
  const row = await db
    .selectFrom("state_tool_calls")
    .select(["request_json", "request_artifact_id", "result_artifact_id"])
    .where("id", "=", toolCallId)
    .executeTakeFirstOrThrow();
  return {
    ...entry,
    request: await storedRequest(db, row),
    response:
      row.result_artifact_id === null ? null : await getArtifact(db, row.result_artifact_id),
  };
}

/**
 * The redacted request of a ledger row: its canonical JSON on the row (`request_json`), or, for
 * calls recorded before migration 020 put it there, the artifact `request_artifact_id` names.
 */
async function storedRequest(
  db: RuntimeDb,
  row: { request_json: string | null; request_artifact_id: string | null },
): Promise<unknown> {
  if (row.request_json !== null) return JSON.parse(row.request_json);
  if (row.request_artifact_id !== null) return getArtifact(db, row.request_artifact_id);
  return null;
}
