-- Search and maintenance over 100,000 records (issue 17).
--
-- Search reads each full-text match's namespace from this index alone: the newest matches of
-- a query are joined to their records by `seq` only to keep the namespace's, and without it
-- every match cost a second lookup into the table itself.
CREATE INDEX ix_state_memory_records_seq_namespace ON state_memory_records (seq, namespace);

-- The immutability guard of 024 ran its WHEN clause (a dozen comparisons, title, rationale and
-- content among them) on every update, hits and maintenance included: half the cost of a pass
-- that decays 100,000 records. `UPDATE OF` the guarded columns runs it only when a statement
-- sets one of them; a statement that sets none cannot change them.
DROP TRIGGER tr_state_memory_records_immutable;
CREATE TRIGGER tr_state_memory_records_immutable BEFORE UPDATE OF id, seq, kind, namespace, source, target, created_at, title, rationale, content, superseded_by_memory_record_id ON state_memory_records
WHEN NEW.id IS NOT OLD.id OR NEW.seq IS NOT OLD.seq OR NEW.kind IS NOT OLD.kind
  OR NEW.namespace IS NOT OLD.namespace OR NEW.source IS NOT OLD.source
  OR NEW.target IS NOT OLD.target OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.kind <> 'proposal' AND (NEW.title IS NOT OLD.title OR NEW.rationale IS NOT OLD.rationale OR NEW.content IS NOT OLD.content))
  OR (OLD.superseded_by_memory_record_id IS NOT NULL AND NEW.superseded_by_memory_record_id IS NOT OLD.superseded_by_memory_record_id)
BEGIN
  SELECT RAISE(ABORT, 'memory invariant I1: the core fields of a memory record are immutable (record a new one, or supersede it)');
END;
