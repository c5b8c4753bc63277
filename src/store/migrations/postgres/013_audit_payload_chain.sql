-- Audit payloads inside the hash chain (issue 7): `payload_hash` is the sha256 of the event's
-- payload artifact, and the chain hash covers it (`sha256(prev_hash, canonical JSON + "\n" +
-- payload_hash)`), so `keel audit verify` detects an altered payload. Null for events without a
-- payload, and for events written before this migration (their payload is checked only against
-- its own stored hash).
ALTER TABLE state_audit_events ADD COLUMN payload_hash TEXT NULL;

-- Audit payload artifacts are append-only like the log that references them: the database
-- refuses to change or delete one, or to turn another artifact into one; TRUNCATE, which cannot
-- spare them, is refused for the whole table.
CREATE FUNCTION fn_state_artifacts_audit_payload_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION 'state_artifacts holds audit payloads, which are append-only: it is never truncated'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD.kind = 'audit-payload' OR (TG_OP = 'UPDATE' AND NEW.kind = 'audit-payload') THEN
    RAISE EXCEPTION 'audit payload artifacts are append-only: they are never %d', lower(TG_OP)
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER tr_state_artifacts_audit_payload_no_update BEFORE UPDATE ON state_artifacts
  FOR EACH ROW EXECUTE FUNCTION fn_state_artifacts_audit_payload_append_only();
CREATE TRIGGER tr_state_artifacts_audit_payload_no_delete BEFORE DELETE ON state_artifacts
  FOR EACH ROW EXECUTE FUNCTION fn_state_artifacts_audit_payload_append_only();
CREATE TRIGGER tr_state_artifacts_no_truncate BEFORE TRUNCATE ON state_artifacts
  FOR EACH STATEMENT EXECUTE FUNCTION fn_state_artifacts_audit_payload_append_only();
