-- The audit log keyed by its sequence number (issue 7, "How fast"): `seq` becomes the table's
-- rowid (INTEGER PRIMARY KEY), so an append writes three b-trees instead of four (the table,
-- the unique `id`, `(trace_id, seq)`; before, the table had a hidden rowid beside the `id` and
-- `seq` indexes), and the chain, searches (newest first) and `keel audit verify` read the
-- table in its own order. A table rebuild: its rows, indexes and append-only triggers as before.
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
  CONSTRAINT pk_state_audit_events PRIMARY KEY (seq),
  CONSTRAINT uq_state_audit_events_id UNIQUE (id),
  CONSTRAINT ck_state_audit_events_stage CHECK (stage IN ('normalize', 'route', 'execute', 'tool-call', 'gate', 'operator', 'scheduler', 'watcher', 'rule')),
  CONSTRAINT ck_state_audit_events_outcome CHECK (outcome IN ('success', 'failure', 'suppressed', 'info')),
  CONSTRAINT ck_state_audit_events_risk_level CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  CONSTRAINT ck_state_audit_events_autonomy_level CHECK (autonomy_level IN ('a0', 'a1', 'a2', 'a3', 'a4'))
);
INSERT INTO state_audit_events_rebuilt (id, seq, trace_id, stage, type, summary, outcome, event_id,
  task_id, step_id, tool_call_id, approval_id, latency_ms, tool_name, connector_id, risk_level,
  autonomy_level, payload_ref, recorded_at, prev_hash, event_hash)
SELECT id, seq, trace_id, stage, type, summary, outcome, event_id, task_id, step_id, tool_call_id,
  approval_id, latency_ms, tool_name, connector_id, risk_level, autonomy_level, payload_ref,
  recorded_at, prev_hash, event_hash
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
