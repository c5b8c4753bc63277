-- Audit payloads inside the hash chain (issue 7): `payload_hash` is the sha256 of the event's
-- payload artifact, and the chain hash covers it (`sha256(prev_hash, canonical JSON + "\n" +
-- payload_hash)`), so `keel audit verify` detects an altered payload. Null for events without a
-- payload, and for events written before this migration (their payload is checked only against
-- its own stored hash).
ALTER TABLE state_audit_events ADD COLUMN payload_hash TEXT NULL;

-- Audit payload artifacts are append-only like the log that references them: the database
-- refuses to change or delete one, or to turn another artifact into one.
CREATE TRIGGER tr_state_artifacts_audit_payload_no_update BEFORE UPDATE ON state_artifacts
WHEN OLD.kind = 'audit-payload' OR NEW.kind = 'audit-payload'
BEGIN
  SELECT RAISE(ABORT, 'audit payload artifacts are append-only: they are never updated');
END;
CREATE TRIGGER tr_state_artifacts_audit_payload_no_delete BEFORE DELETE ON state_artifacts
WHEN OLD.kind = 'audit-payload'
BEGIN
  SELECT RAISE(ABORT, 'audit payload artifacts are append-only: they are never deleted');
END;
