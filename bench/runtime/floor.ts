/**
 * The floor of a ledgered call on SQLite: the rows one call writes (the `attempted` ledger row
 * with its request and its audit event with the chain head, committed; then the result
 * artifact, the `succeeded` update and its audit event with the head, committed), written by bare
 * better-sqlite3 prepared statements with every value computed beforehand — no ids, hashes, JSON,
 * validation or JavaScript around them. On a store opened with the store's settings and schema,
 * so its indexes and WAL checkpoints are the ledger's. A ledgered call cannot cost less than
 * this on the same machine; the bench prints it beside the ledger's cost.
 */
import type Database from "better-sqlite3";

const HASH = "5f1c1b3c8e0a4d7e9b2a6c4f0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
const TRACE = "01a2f0c4-8b1e-7000-8000-000000000000";
const HEAD = "audit";

const FIND_LIVE = "SELECT * FROM state_tool_calls WHERE tool_name = ? AND live_key = ?";
const INSERT_ARTIFACT =
  "INSERT INTO state_artifacts (id, kind, content_hash, body_json, byte_count, created_at) VALUES (?, ?, ?, ?, ?, ?)";
const INSERT_CALL = `INSERT INTO state_tool_calls (id, trace_id, task_id, step_id, event_id,
  connector_id, tool_name, tool_version, action, request_hash, request_json, idempotency_key,
  live_key, status, latency_ms, risk_level, autonomy_level, result_status, response_hash,
  result_artifact_id, error_json, created_at, updated_at, resolved_at, lease_owner,
  lease_expires_at)
VALUES (?, ?, NULL, NULL, NULL, 'bench', 'bench.noop', '1.0.0', 'noop', ?, ?, ?, ?, 'attempted',
  NULL, 'low', 'a4', NULL, NULL, NULL, NULL, ?, ?, NULL, 'bench-host:4242:0a1b2c3d', ?)`;
const UPDATE_CALL = `UPDATE state_tool_calls SET status = 'succeeded', latency_ms = 0,
  result_status = 'succeeded', response_hash = ?, result_artifact_id = ?, error_json = NULL,
  updated_at = ?, resolved_at = ?, lease_expires_at = NULL
WHERE id = ? AND status = 'attempted'`;
const SELECT_HEAD = "SELECT last_seq, last_hash FROM state_audit_heads WHERE id = ?";
const INSERT_HEAD =
  "INSERT INTO state_audit_heads (id, last_seq, last_hash, updated_at) VALUES (?, 0, ?, 0)";
const UPDATE_HEAD =
  "UPDATE state_audit_heads SET last_seq = ?, last_hash = ?, updated_at = ? WHERE id = ?";
const INSERT_EVENT = `INSERT INTO state_audit_events (id, seq, trace_id, stage, type, summary,
  outcome, event_id, task_id, step_id, tool_call_id, approval_id, latency_ms, tool_name,
  connector_id, risk_level, autonomy_level, payload_ref, recorded_at, prev_hash, event_hash)
VALUES (?, ?, ?, 'tool-call', ?, ?, 'info', NULL, NULL, NULL, ?, NULL, ?, 'bench.noop', 'bench',
  'low', 'a4', NULL, ?, ?, ?)`;

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
  const audit = (n: number, kind: number, type: string, callId: string, now: number) => {
    const head = selectHead.get(HEAD) as { last_seq: number; last_hash: string };
    const seq = head.last_seq + 1;
    insertEvent.run(
      id(kind, n),
      seq,
      TRACE,
      type,
      `bench.noop: noop ${type.slice("tool_call.".length)}`,
      callId,
      kind === 3 ? null : 0,
      now,
      head.last_hash,
      HASH,
    );
    updateHead.run(seq, HASH, now, HEAD);
  };
  const attempted = database.transaction((n: number, now: number) => {
    const callId = id(1, n);
    findLive.get("bench.noop", `k-${n}`);
    const request = `{"action":"noop","input":{"i":${n}},"tool":"bench.noop","version":"1.0.0"}`;
    insertCall.run(callId, TRACE, HASH, request, `k-${n}`, `k-${n}`, now, now, now + 30_000);
    audit(n, 3, "tool_call.attempted", callId, now);
  });
  const succeeded = database.transaction((n: number, now: number) => {
    const callId = id(1, n);
    insertArtifact.run(id(4, n), "tool-result", HASH, "{}", 2, now);
    updateCall.run(HASH, id(4, n), now, now, callId);
    audit(n, 5, "tool_call.succeeded", callId, now);
  });
  for (let n = from; n < from + calls; n++) {
    const now = Date.now();
    attempted.immediate(n, now);
    succeeded.immediate(n, now);
  }
}
