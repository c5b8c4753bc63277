-- Governed runtime (issue 7, seed 003): the audit log, artifacts, the tool-call ledger and
-- approvals. Zone `state_`; naming per seed 004 (`_at` integer ms, `_json` text, `_hash` hex,
-- kebab-case CHECK enums: the seed's `tool_call` stage is stored `tool-call`, autonomy `A2` as
-- `a2`; src/runtime maps them at the boundary).

-- The audit log. Append-only: the triggers below refuse UPDATE and DELETE. `seq` orders the hash
-- chain: `event_hash` = sha256(prev_hash, canonical JSON of the seed-003 AuditEvent), and
-- `prev_hash` is the previous event's `event_hash` (64 zeros for the first).
CREATE TABLE state_audit_events (
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
  CONSTRAINT pk_state_audit_events PRIMARY KEY (id),
  CONSTRAINT ck_state_audit_events_stage CHECK (stage IN ('normalize', 'route', 'execute', 'tool-call', 'gate', 'operator', 'scheduler', 'watcher', 'rule')),
  CONSTRAINT ck_state_audit_events_outcome CHECK (outcome IN ('success', 'failure', 'suppressed', 'info')),
  CONSTRAINT ck_state_audit_events_risk_level CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  CONSTRAINT ck_state_audit_events_autonomy_level CHECK (autonomy_level IN ('a0', 'a1', 'a2', 'a3', 'a4'))
);
CREATE UNIQUE INDEX ix_state_audit_events_seq ON state_audit_events (seq);
CREATE INDEX ix_state_audit_events_trace_id_seq ON state_audit_events (trace_id, seq);
CREATE INDEX ix_state_audit_events_type ON state_audit_events (type);
CREATE INDEX ix_state_audit_events_recorded_at ON state_audit_events (recorded_at);

CREATE TRIGGER tr_state_audit_events_no_update BEFORE UPDATE ON state_audit_events
BEGIN
  SELECT RAISE(ABORT, 'state_audit_events is append-only: audit events are never updated');
END;
CREATE TRIGGER tr_state_audit_events_no_delete BEFORE DELETE ON state_audit_events
BEGIN
  SELECT RAISE(ABORT, 'state_audit_events is append-only: audit events are never deleted');
END;

-- The head of the audit chain: the last seq and hash, so that a truncated tail is detected too.
-- Appends lock this row, which serialises them on Postgres.
CREATE TABLE state_audit_heads (
  id TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  last_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  CONSTRAINT pk_state_audit_heads PRIMARY KEY (id)
);

-- Payloads referenced by id (tool results, redacted requests, audit payloads), never inlined.
CREATE TABLE state_artifacts (
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  body_json TEXT NOT NULL,
  byte_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  CONSTRAINT pk_state_artifacts PRIMARY KEY (id),
  CONSTRAINT ck_state_artifacts_kind CHECK (kind IN ('tool-request', 'tool-result', 'tool-error', 'audit-payload'))
);
CREATE INDEX ix_state_artifacts_content_hash ON state_artifacts (content_hash);

-- The tool-call ledger: `attempted` is committed before the effect; the outcome after. The
-- result (seed ToolResult) lives on the same row; its payload in state_artifacts. At most one
-- call per (tool, idempotency key) is live or succeeded; failed attempts may be retried.
CREATE TABLE state_tool_calls (
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
  request_artifact_id TEXT NOT NULL,
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
  CONSTRAINT pk_state_tool_calls PRIMARY KEY (id),
  CONSTRAINT fk_state_tool_calls_request_artifact_id FOREIGN KEY (request_artifact_id) REFERENCES state_artifacts (id),
  CONSTRAINT fk_state_tool_calls_result_artifact_id FOREIGN KEY (result_artifact_id) REFERENCES state_artifacts (id),
  CONSTRAINT ck_state_tool_calls_status CHECK (status IN ('attempted', 'succeeded', 'failed', 'unknown')),
  CONSTRAINT ck_state_tool_calls_result_status CHECK (result_status IN ('succeeded', 'failed')),
  CONSTRAINT ck_state_tool_calls_risk_level CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  CONSTRAINT ck_state_tool_calls_autonomy_level CHECK (autonomy_level IN ('a0', 'a1', 'a2', 'a3', 'a4')),
  CONSTRAINT ck_state_tool_calls_idempotency_key CHECK (length(idempotency_key) > 0)
);
CREATE UNIQUE INDEX ix_state_tool_calls_tool_name_idempotency_key
  ON state_tool_calls (tool_name, idempotency_key) WHERE status <> 'failed';
CREATE INDEX ix_state_tool_calls_trace_id ON state_tool_calls (trace_id);
CREATE INDEX ix_state_tool_calls_status ON state_tool_calls (status);
CREATE INDEX ix_state_tool_calls_task_id ON state_tool_calls (task_id);

-- Approvals: a person allows or refuses a gated action before it expires.
CREATE TABLE state_approvals (
  id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  event_id TEXT NULL,
  task_id TEXT NULL,
  step_id TEXT NULL,
  status TEXT NOT NULL,
  risk_level TEXT NOT NULL,
  autonomy_level TEXT NOT NULL,
  what_json TEXT NOT NULL,
  why TEXT NOT NULL,
  how_to_approve TEXT NOT NULL,
  required_capability TEXT NULL,
  decided_by TEXT NULL,
  decided_at INTEGER NULL,
  decision_reason TEXT NULL,
  decision_capability TEXT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  CONSTRAINT pk_state_approvals PRIMARY KEY (id),
  CONSTRAINT ck_state_approvals_status CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  CONSTRAINT ck_state_approvals_risk_level CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  CONSTRAINT ck_state_approvals_autonomy_level CHECK (autonomy_level IN ('a0', 'a1', 'a2', 'a3', 'a4')),
  CONSTRAINT ck_state_approvals_expires_at CHECK (expires_at > created_at)
);
CREATE INDEX ix_state_approvals_status_expires_at ON state_approvals (status, expires_at);
CREATE INDEX ix_state_approvals_trace_id ON state_approvals (trace_id);

-- Ingested events (seed-003 MessageEvents as normalised), by event id.
CREATE TABLE state_events (
  id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  connector_id TEXT NOT NULL,
  dedupe_key TEXT NULL,
  event_json TEXT NOT NULL,
  occurred_at INTEGER NOT NULL,
  ingested_at INTEGER NOT NULL,
  CONSTRAINT pk_state_events PRIMARY KEY (id),
  CONSTRAINT ck_state_events_channel CHECK (channel IN ('email', 'sms', 'webhook', 'ha-event', 'scheduler', 'rule-engine', 'watcher', 'vision'))
);
CREATE INDEX ix_state_events_trace_id ON state_events (trace_id);
CREATE INDEX ix_state_events_ingested_at ON state_events (ingested_at);

-- Duplicate suppression: one row per dedupe key, owned by the first event inside the window.
-- A single upsert claims a key (or takes over an expired claim), so concurrent ingestion of the
-- same input admits exactly one event.
CREATE TABLE state_dedupe_keys (
  id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  CONSTRAINT pk_state_dedupe_keys PRIMARY KEY (id)
);
CREATE INDEX ix_state_dedupe_keys_expires_at ON state_dedupe_keys (expires_at);
