/**
 * The floor of a ledgered call on SQLite: the rows one call writes (the `attempted` audit event
 * with the chain head, then the ledger row with its request and its fence — the event's
 * sequence number —, committed; then the result artifact, the `succeeded` update and its audit
 * event with the head, committed), written by bare better-sqlite3 prepared statements with every
 * value computed beforehand — no ids, hashes, JSON, validation or JavaScript around them. On a
 * store opened with the store's settings and schema, so its indexes, CHECKs and WAL checkpoints
 * are the ledger's. A ledgered call cannot cost less than this on the same machine; the bench
 * prints it beside the ledger's cost.
 *
 * Like for like with the ledger (checked statement by statement and page by page, docs/runtime.md):
 * the ledger's own SQL (the same columns bound, the same constants in the text) in the same order
 * and commits, and rows of the same bytes (texts, the fence). What differs is only what the
 * ledger computes in JavaScript, which is what the bench's ratio is about.
 */
import { hostname } from "node:os";
import type Database from "better-sqlite3";

const HASH = "5f1c1b3c8e0a4d7e9b2a6c4f0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
const TRACE = "01a2f0c4-8b1e-7000-8000-000000000000";
const HEAD = "audit";
/** A ledger's owner id as `newLedgerOwner` makes it (`host:pid:random`). */
const OWNER = `${hostname()}:${process.pid}:0a1b2c3d`;
const TOOL = "bench.noop";

const FIND_LIVE = "SELECT * FROM state_tool_calls WHERE tool_name = ? AND live_key = ?";
const INSERT_ARTIFACT =
  "INSERT INTO state_artifacts (id, kind, content_hash, body_json, byte_count, created_at) VALUES (?, ?, ?, ?, ?, ?)";
// The ledger's own statements (ledger-sqlite.ts, audit-sqlite.ts): the same columns bound.
const INSERT_CALL = `INSERT INTO state_tool_calls (id, trace_id, task_id, step_id, event_id,
  connector_id, tool_name, tool_version, action, request_hash, request_artifact_id,
  idempotency_key, status, latency_ms, risk_level, autonomy_level, result_status, response_hash,
  result_artifact_id, error_json, created_at, updated_at, resolved_at, cost_estimate, lease_owner,
  lease_expires_at, request_json, live_key, fence)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 'attempted', NULL, ?, ?, NULL, NULL, NULL, NULL, ?, ?,
  NULL, ?, ?, ?, ?, ?, ?)`;
const UPDATE_CALL = `UPDATE state_tool_calls SET status = ?, latency_ms = ?, result_status = ?,
  response_hash = ?, result_artifact_id = ?, error_json = ?, updated_at = ?, resolved_at = ?,
  lease_expires_at = ?
WHERE id = ? AND status = ?`;
const SELECT_HEAD = "SELECT last_seq, last_hash FROM state_audit_heads WHERE id = ?";
const INSERT_HEAD =
  "INSERT INTO state_audit_heads (id, last_seq, last_hash, updated_at) VALUES (?, 0, ?, 0)";
const UPDATE_HEAD =
  "UPDATE state_audit_heads SET last_seq = ?, last_hash = ?, updated_at = ? WHERE id = ?";
const INSERT_EVENT = `INSERT INTO state_audit_events (id, trace_id, stage, type, summary, outcome,
  event_id, task_id, step_id, tool_call_id, approval_id, latency_ms, tool_name, connector_id,
  risk_level, autonomy_level, payload_ref, recorded_at, payload_hash, seq, prev_hash, event_hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * A UUID-shaped id, distinct per (kind, n), increasing in the order they are made like the
 * ledger's UUIDv7s (n first, then kind): ids that interleave would split more index pages.
 */
function id(kind: number, n: number): string {
  return `01a2f0c4-8b1e-7000-8000-${(n * 8 + kind).toString(16).padStart(12, "0")}`;
}

/**
 * Writes `calls` ledgered calls' rows on `database` (a store's native handle), two commits per
 * call, starting at call number `from` (so rounds never reuse ids or keys).
 */
export function writeFloorCalls(database: Database.Database, from: number, calls: number): void {
  const findLive = database.prepare(FIND_LIVE);
  const insertArtifact = database.prepare(INSERT_ARTIFACT);
  const insertCall = database.prepare(INSERT_CALL);
  const updateCall = database.prepare(UPDATE_CALL);
  const selectHead = database.prepare(SELECT_HEAD);
  const updateHead = database.prepare(UPDATE_HEAD);
  const insertEvent = database.prepare(INSERT_EVENT);
  if (!selectHead.get(HEAD)) database.prepare(INSERT_HEAD).run(HEAD, HASH);
  /** Appends one event as the ledger does (head read, event, head update); its seq. */
  const audit = (
    n: number,
    kind: number,
    callId: string,
    now: number,
    [type, summary, outcome, latency]: readonly [string, string, string, number | null],
  ): number => {
    const head = selectHead.get(HEAD) as { last_seq: number; last_hash: string };
    const seq = head.last_seq + 1;
    insertEvent.run(
      id(kind, n),
      TRACE,
      "tool-call",
      type,
      summary,
      outcome,
      null,
      null,
      null,
      callId,
      null,
      latency,
      TOOL,
      "bench",
      "low",
      "a4",
      null,
      now,
      null,
      seq,
      head.last_hash,
      HASH,
    );
    updateHead.run(seq, HASH, now, HEAD);
    return seq;
  };
  // The ledger's texts for a no-op call answered within the millisecond.
  const attemptedEvent = ["tool_call.attempted", `${TOOL}: noop attempted`, "info", null] as const;
  const succeededEvent = [
    "tool_call.succeeded",
    `${TOOL}: noop succeeded in 0 ms`,
    "success",
    0,
  ] as const;
  const attempted = database.transaction((n: number, now: number) => {
    const callId = id(1, n);
    const key = `k-${n}`;
    findLive.get(TOOL, key);
    // The event first: its sequence number is the call's fence.
    const fence = audit(n, 3, callId, now, attemptedEvent);
    const request = `{"action":"noop","input":{"i":${n % 1000}},"tool":"bench.noop","version":"1.0.0"}`;
    insertCall.run(
      callId,
      TRACE,
      null,
      null,
      null,
      "bench",
      TOOL,
      "1.0.0",
      "noop",
      HASH,
      key,
      "low",
      "a4",
      now,
      now,
      null,
      OWNER,
      now + 30_000,
      request,
      key,
      fence,
    );
  });
  const succeeded = database.transaction((n: number, now: number) => {
    const callId = id(1, n);
    insertArtifact.run(id(4, n), "tool-result", HASH, "{}", 2, now);
    updateCall.run(
      "succeeded",
      0,
      "succeeded",
      HASH,
      id(4, n),
      null,
      now,
      now,
      null,
      callId,
      "attempted",
    );
    audit(n, 5, callId, now, succeededEvent);
  });
  for (let n = from; n < from + calls; n++) {
    const now = Date.now();
    attempted.immediate(n, now);
    succeeded.immediate(n, now);
  }
}
