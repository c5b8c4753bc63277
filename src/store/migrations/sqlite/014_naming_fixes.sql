-- Naming (seed 004, checked by checkNamingRules on the live schema): a foreign key is named
-- <referenced_table_singular>_id, so the key of state_run_documents, the id of its run, becomes
-- `run_id` (a 1:1 table keyed by its parent, as the seed keys config_plugins by plugin_id); and
-- an index is named after all its columns, so ix_state_threads_updated_at on (updated_at, id)
-- becomes ix_state_threads_updated_at_id. SQLite renames no constraint: the table is rebuilt,
-- its rows and columns as before.
CREATE TABLE state_run_documents_rebuilt (
  run_id TEXT NOT NULL,
  document_path TEXT NOT NULL,
  document_id TEXT NOT NULL,
  graph_hash TEXT NOT NULL,
  input_json TEXT NOT NULL,
  packs_dir TEXT NULL,
  created_at INTEGER NOT NULL,
  node_kinds_json TEXT NOT NULL DEFAULT '[]',
  CONSTRAINT pk_state_run_documents PRIMARY KEY (run_id),
  CONSTRAINT fk_state_run_documents_run_id FOREIGN KEY (run_id) REFERENCES state_runs (id) ON DELETE CASCADE
);
INSERT INTO state_run_documents_rebuilt (run_id, document_path, document_id, graph_hash,
  input_json, packs_dir, created_at, node_kinds_json)
SELECT id, document_path, document_id, graph_hash, input_json, packs_dir, created_at,
  node_kinds_json
FROM state_run_documents;
DROP TABLE state_run_documents;
ALTER TABLE state_run_documents_rebuilt RENAME TO state_run_documents;

DROP INDEX ix_state_threads_updated_at;
CREATE INDEX ix_state_threads_updated_at_id ON state_threads (updated_at, id);
