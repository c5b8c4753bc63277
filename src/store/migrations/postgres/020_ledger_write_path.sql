-- The tool-call ledger's write path (issue 7, "How fast"), as on SQLite (see its 020 for why):
-- the redacted request on the call's row (`request_json`; earlier calls keep their
-- `request_artifact_id`, now nullable), one live call per (tool, key) enforced on `live_key`
-- (the key until the call fails), only `unknown` calls indexed by status, and no UNIQUE index
-- on the audit event id. Here an UPDATE that changes an indexed column (or one an index's
-- condition names) writes a new entry into every index of the table, so the same indexes go.
ALTER TABLE state_tool_calls ADD COLUMN request_json TEXT NULL;
ALTER TABLE state_tool_calls ADD COLUMN live_key TEXT NULL;
ALTER TABLE state_tool_calls ALTER COLUMN request_artifact_id DROP NOT NULL;
UPDATE state_tool_calls SET live_key = idempotency_key WHERE status <> 'failed';
ALTER TABLE state_tool_calls ADD CONSTRAINT ck_state_tool_calls_request
  CHECK (request_json IS NOT NULL OR request_artifact_id IS NOT NULL);
ALTER TABLE state_tool_calls ADD CONSTRAINT ck_state_tool_calls_live_key CHECK (
  (status = 'failed' AND live_key IS NULL) OR (status <> 'failed' AND live_key = idempotency_key)
);
DROP INDEX ix_state_tool_calls_tool_name_idempotency_key;
CREATE UNIQUE INDEX ix_state_tool_calls_tool_name_live_key
  ON state_tool_calls (tool_name, live_key) WHERE live_key IS NOT NULL;
DROP INDEX ix_state_tool_calls_status;
CREATE INDEX ix_state_tool_calls_status ON state_tool_calls (status) WHERE status = 'unknown';

ALTER TABLE state_audit_events DROP CONSTRAINT uq_state_audit_events_id;
