-- The ledger's CHECKs on enum columns as chains of equalities (issue 14, "How fast"). SQLite
-- evaluates `x IN ('a', 'b', 'c')` with more than two constants by building a temporary b-tree
-- of the list, once per statement run: for a one-row INSERT or UPDATE, once per row, and each
-- allocates and zeroes a page cache of its own. A ledgered call ran twelve of them (the call's
-- row, its outcome and its two audit events): about a quarter of the call's CPU on SQLite
-- (docs/runtime.md). `(x = 'a' OR x = 'b' OR x = 'c')` admits exactly the same values (a NULL
-- passes both, as a CHECK that is not false) and is evaluated in place. Lists of two or fewer
-- were already evaluated in place and stay as they are. Both tables are rebuilt (SQLite cannot
-- change a CHECK in place): rows, other constraints, indexes and the log's append-only triggers
-- as before. Postgres evaluates these lists in place already (its 033 changes nothing).

CREATE TABLE state_tool_calls_rebuilt (
  id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  task_id TEXT NULL,
  step_id TEXT NULL,
  event_id TEXT NULL,
  connector_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  action TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  request_artifact_id TEXT NULL,
  idempotency_key TEXT NOT NULL,
  status TEXT NOT NULL,
  latency_ms INTEGER NULL,
  risk_level TEXT NOT NULL,
  autonomy_level TEXT NOT NULL,
  result_status TEXT NULL,
  response_hash TEXT NULL,
  result_artifact_id TEXT NULL,
  error_json TEXT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  resolved_at INTEGER NULL,
  cost_estimate TEXT NULL,
  lease_owner TEXT NULL,
  lease_expires_at INTEGER NULL,
  request_json TEXT NULL,
  live_key TEXT NULL,
  fence INTEGER NULL,
  CONSTRAINT pk_state_tool_calls PRIMARY KEY (id),
  CONSTRAINT fk_state_tool_calls_request_artifact_id FOREIGN KEY (request_artifact_id) REFERENCES state_artifacts (id),
  CONSTRAINT fk_state_tool_calls_result_artifact_id FOREIGN KEY (result_artifact_id) REFERENCES state_artifacts (id),
  CONSTRAINT ck_state_tool_calls_status CHECK (status = 'attempted' OR status = 'succeeded' OR status = 'failed' OR status = 'unknown'),
  CONSTRAINT ck_state_tool_calls_result_status CHECK (result_status IN ('succeeded', 'failed')),
  CONSTRAINT ck_state_tool_calls_risk_level CHECK (risk_level = 'low' OR risk_level = 'medium' OR risk_level = 'high' OR risk_level = 'critical'),
  CONSTRAINT ck_state_tool_calls_autonomy_level CHECK (autonomy_level = 'a0' OR autonomy_level = 'a1' OR autonomy_level = 'a2' OR autonomy_level = 'a3' OR autonomy_level = 'a4'),
  CONSTRAINT ck_state_tool_calls_idempotency_key CHECK (length(idempotency_key) > 0),
  CONSTRAINT ck_state_tool_calls_request CHECK (request_json IS NOT NULL OR request_artifact_id IS NOT NULL),
  CONSTRAINT ck_state_tool_calls_live_key CHECK (
    (status = 'failed' AND live_key IS NULL) OR (status <> 'failed' AND live_key = idempotency_key)
  )
);
INSERT INTO state_tool_calls_rebuilt (id, trace_id, task_id, step_id, event_id, connector_id,
  tool_name, tool_version, action, request_hash, request_artifact_id, idempotency_key, status,
  latency_ms, risk_level, autonomy_level, result_status, response_hash, result_artifact_id,
  error_json, created_at, updated_at, resolved_at, cost_estimate, lease_owner, lease_expires_at,
  request_json, live_key, fence)
SELECT id, trace_id, task_id, step_id, event_id, connector_id, tool_name, tool_version, action,
  request_hash, request_artifact_id, idempotency_key, status, latency_ms, risk_level,
  autonomy_level, result_status, response_hash, result_artifact_id, error_json, created_at,
  updated_at, resolved_at, cost_estimate, lease_owner, lease_expires_at, request_json, live_key,
  fence
FROM state_tool_calls;
DROP TABLE state_tool_calls;
ALTER TABLE state_tool_calls_rebuilt RENAME TO state_tool_calls;
CREATE UNIQUE INDEX ix_state_tool_calls_tool_name_live_key
  ON state_tool_calls (tool_name, live_key) WHERE live_key IS NOT NULL;
CREATE INDEX ix_state_tool_calls_status ON state_tool_calls (status) WHERE status = 'unknown';
CREATE INDEX ix_state_tool_calls_task_id ON state_tool_calls (task_id) WHERE task_id IS NOT NULL;

CREATE TABLE state_audit_events_rebuilt (
  id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  trace_id TEXT NOT NULL,
  stage TEXT NOT NULL,
  type TEXT NOT NULL,
  summary TEXT NOT NULL,
  outcome TEXT NOT NULL,
  event_id TEXT NULL,
  task_id TEXT NULL,
  step_id TEXT NULL,
  tool_call_id TEXT NULL,
  approval_id TEXT NULL,
  latency_ms INTEGER NULL,
  tool_name TEXT NULL,
  connector_id TEXT NULL,
  risk_level TEXT NULL,
  autonomy_level TEXT NULL,
  payload_ref TEXT NULL,
  recorded_at INTEGER NOT NULL,
  prev_hash TEXT NOT NULL,
  event_hash TEXT NOT NULL,
  payload_hash TEXT NULL,
  CONSTRAINT pk_state_audit_events PRIMARY KEY (seq),
  CONSTRAINT ck_state_audit_events_stage CHECK (stage = 'normalize' OR stage = 'route' OR stage = 'execute' OR stage = 'tool-call' OR stage = 'gate' OR stage = 'operator' OR stage = 'scheduler' OR stage = 'watcher' OR stage = 'rule'),
  CONSTRAINT ck_state_audit_events_outcome CHECK (outcome = 'success' OR outcome = 'failure' OR outcome = 'suppressed' OR outcome = 'info'),
  CONSTRAINT ck_state_audit_events_risk_level CHECK (risk_level = 'low' OR risk_level = 'medium' OR risk_level = 'high' OR risk_level = 'critical'),
  CONSTRAINT ck_state_audit_events_autonomy_level CHECK (autonomy_level = 'a0' OR autonomy_level = 'a1' OR autonomy_level = 'a2' OR autonomy_level = 'a3' OR autonomy_level = 'a4')
);
INSERT INTO state_audit_events_rebuilt (id, seq, trace_id, stage, type, summary, outcome, event_id,
  task_id, step_id, tool_call_id, approval_id, latency_ms, tool_name, connector_id, risk_level,
  autonomy_level, payload_ref, recorded_at, prev_hash, event_hash, payload_hash)
SELECT id, seq, trace_id, stage, type, summary, outcome, event_id, task_id, step_id, tool_call_id,
  approval_id, latency_ms, tool_name, connector_id, risk_level, autonomy_level, payload_ref,
  recorded_at, prev_hash, event_hash, payload_hash
FROM state_audit_events ORDER BY seq;
-- DROP TABLE fires no trigger; it takes the old table's indexes and triggers with it.
DROP TABLE state_audit_events;
ALTER TABLE state_audit_events_rebuilt RENAME TO state_audit_events;
CREATE INDEX ix_state_audit_events_trace_id_seq ON state_audit_events (trace_id, seq);
CREATE TRIGGER tr_state_audit_events_no_update BEFORE UPDATE ON state_audit_events
BEGIN
  SELECT RAISE(ABORT, 'state_audit_events is append-only: audit events are never updated');
END;
CREATE TRIGGER tr_state_audit_events_no_delete BEFORE DELETE ON state_audit_events
BEGIN
  SELECT RAISE(ABORT, 'state_audit_events is append-only: audit events are never deleted');
END;
