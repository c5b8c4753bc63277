-- Naming (seed 004, checked by checkNamingRules on the live schema): a foreign key is named
-- <referenced_table_singular>_id, so the key of state_run_documents, the id of its run, becomes
-- `run_id` (a 1:1 table keyed by its parent, as the seed keys config_plugins by plugin_id); and
-- an index is named after all its columns, so ix_state_threads_updated_at on (updated_at, id)
-- becomes ix_state_threads_updated_at_id.
ALTER TABLE state_run_documents RENAME COLUMN id TO run_id;
ALTER TABLE state_run_documents RENAME CONSTRAINT fk_state_run_documents_id TO fk_state_run_documents_run_id;
ALTER INDEX ix_state_threads_updated_at RENAME TO ix_state_threads_updated_at_id;
