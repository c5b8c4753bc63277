-- Run documents (issue 6, seed 000): which IR document a `keel run` ran, so `keel runs resume`
-- and `keel runs respond` can continue a run by its id alone. One row per run; `id` is the run's
-- id and the row goes with its run. Zone `state_`; naming per seed 004 (`_at` integer ms,
-- `_json` text, `_hash` lowercase hex).
CREATE TABLE state_run_documents (
  id TEXT NOT NULL,
  document_path TEXT NOT NULL,
  document_id TEXT NOT NULL,
  graph_hash TEXT NOT NULL,
  input_json TEXT NOT NULL,
  packs_dir TEXT NULL,
  created_at INTEGER NOT NULL,
  CONSTRAINT pk_state_run_documents PRIMARY KEY (id),
  CONSTRAINT fk_state_run_documents_id FOREIGN KEY (id) REFERENCES state_runs (id) ON DELETE CASCADE
);
