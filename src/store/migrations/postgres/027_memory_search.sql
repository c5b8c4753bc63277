-- Full-text search reads a stored tsvector instead of recomputing one per row. With the GIN
-- index over the expression (024), every matching row had its to_tsvector computed twice per
-- search (heap recheck and ts_rank): ~1 s for a two-word query matching 20,000 of 100,000
-- records. A stored generated column is computed once per write; the index moves onto it.
-- The expression is the one of 024 (content beyond 100,000 characters is not indexed: a
-- tsvector holds at most 1 MB).
ALTER TABLE state_memory_records ADD COLUMN search_vector tsvector
  GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, title || ' ' || target || ' ' || rationale || ' ' || left(content, 100000) || ' ' || keywords)
  ) STORED;

DROP INDEX ix_state_memory_records_search;

CREATE INDEX ix_state_memory_records_search_vector ON state_memory_records USING GIN (search_vector);
