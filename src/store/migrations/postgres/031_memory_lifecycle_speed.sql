-- Lifecycle writes no longer rewrite full text (issue 17). Maintenance changes confidence,
-- vitality and stream metrics of every record it touches; with the tsvector a stored
-- generated column of state_memory_records (027), each such update recomputed it, wrote a new
-- tuple carrying it, and re-entered every lexeme into the GIN index (about 15 s for 100,000
-- records). The words now live in state_memory_texts, one row per record, written when a
-- record is inserted or its words change (only proposals' words can change), and nothing else.
-- It also holds the record's namespace and seq (both immutable), so a search walks
-- (namespace, seq) backwards and tests the vector without reading the record.
--
-- The row triggers of state_memory_records gain WHEN clauses, so an update that changes
-- neither a core field nor a link (hits, decay, vitality) runs no PL/pgSQL at all.

CREATE TABLE state_memory_texts (
  memory_record_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  seq BIGINT NOT NULL,
  search_vector tsvector NOT NULL,
  CONSTRAINT pk_state_memory_texts PRIMARY KEY (memory_record_id),
  CONSTRAINT fk_state_memory_texts_memory_record_id FOREIGN KEY (memory_record_id) REFERENCES state_memory_records (id) ON DELETE CASCADE
);

INSERT INTO state_memory_texts (memory_record_id, namespace, seq, search_vector)
SELECT id, namespace, seq, search_vector FROM state_memory_records;

CREATE INDEX ix_state_memory_texts_search_vector ON state_memory_texts USING GIN (search_vector);
CREATE INDEX ix_state_memory_texts_namespace_seq ON state_memory_texts (namespace, seq);

ALTER TABLE state_memory_records DROP COLUMN search_vector;

-- The words of a record, as 024 and 027 defined them (content beyond 100,000 characters is not
-- indexed: a tsvector holds at most 1 MB).
CREATE FUNCTION fn_state_memory_records_texts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO state_memory_texts (memory_record_id, namespace, seq, search_vector)
  VALUES (NEW.id, NEW.namespace, NEW.seq, to_tsvector('simple'::regconfig,
    NEW.title || ' ' || NEW.target || ' ' || NEW.rationale || ' ' || left(NEW.content, 100000) || ' ' || NEW.keywords))
  ON CONFLICT (memory_record_id) DO UPDATE SET search_vector = EXCLUDED.search_vector;
  RETURN NULL;
END;
$$;
CREATE TRIGGER tr_state_memory_records_texts_insert AFTER INSERT ON state_memory_records
  FOR EACH ROW EXECUTE FUNCTION fn_state_memory_records_texts();
CREATE TRIGGER tr_state_memory_records_texts_update AFTER UPDATE ON state_memory_records
  FOR EACH ROW WHEN (NEW.title IS DISTINCT FROM OLD.title OR NEW.target IS DISTINCT FROM OLD.target
    OR NEW.rationale IS DISTINCT FROM OLD.rationale OR NEW.content IS DISTINCT FROM OLD.content
    OR NEW.keywords IS DISTINCT FROM OLD.keywords)
  EXECUTE FUNCTION fn_state_memory_records_texts();

-- The guard (immutable core, acyclic links) only when a core field or the link changes.
DROP TRIGGER tr_state_memory_records_guard ON state_memory_records;
CREATE TRIGGER tr_state_memory_records_guard_insert BEFORE INSERT ON state_memory_records
  FOR EACH ROW WHEN (NEW.superseded_by_memory_record_id IS NOT NULL)
  EXECUTE FUNCTION fn_state_memory_records_guard();
CREATE TRIGGER tr_state_memory_records_guard_update BEFORE UPDATE ON state_memory_records
  FOR EACH ROW WHEN (NEW.id IS DISTINCT FROM OLD.id OR NEW.seq IS DISTINCT FROM OLD.seq
    OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.namespace IS DISTINCT FROM OLD.namespace
    OR NEW.source IS DISTINCT FROM OLD.source OR NEW.target IS DISTINCT FROM OLD.target
    OR NEW.created_at IS DISTINCT FROM OLD.created_at OR NEW.title IS DISTINCT FROM OLD.title
    OR NEW.rationale IS DISTINCT FROM OLD.rationale OR NEW.content IS DISTINCT FROM OLD.content
    OR NEW.superseded_by_memory_record_id IS DISTINCT FROM OLD.superseded_by_memory_record_id)
  EXECUTE FUNCTION fn_state_memory_records_guard();

-- A revision only for a change of meaning (the function tests the same columns again).
DROP TRIGGER tr_state_memory_records_revision ON state_memory_records;
CREATE TRIGGER tr_state_memory_records_revision_insert AFTER INSERT ON state_memory_records
  FOR EACH ROW EXECUTE FUNCTION fn_state_memory_records_revision();
CREATE TRIGGER tr_state_memory_records_revision_update AFTER UPDATE ON state_memory_records
  FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status
    OR NEW.superseded_by_memory_record_id IS DISTINCT FROM OLD.superseded_by_memory_record_id
    OR NEW.context_json IS DISTINCT FROM OLD.context_json OR NEW.title IS DISTINCT FROM OLD.title
    OR NEW.rationale IS DISTINCT FROM OLD.rationale OR NEW.content IS DISTINCT FROM OLD.content)
  EXECUTE FUNCTION fn_state_memory_records_revision();

-- Room for HOT updates: a maintenance pass rewrites confidence, vitality and stream metrics,
-- none of them indexed, so a new row version can stay on its page and enter no index, if the
-- page has room for it. A pass may touch every row of a page, hence half a page free. Pages
-- written before this migration stay full until they are rewritten (VACUUM FULL, or as rows
-- move); new records get the room.
ALTER TABLE state_memory_records SET (fillfactor = 50);

-- The new table's statistics, so the planner picks between walking (namespace, seq) and the
-- GIN index from the first search instead of after autovacuum's first visit.
ANALYZE state_memory_texts;
