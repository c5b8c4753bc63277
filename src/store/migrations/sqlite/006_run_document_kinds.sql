-- Node kinds of a run's document (issue 6): the modules `keel run --kinds <module>` loaded, so
-- `keel runs resume|respond <run id>` compiles the document with the same kinds. A JSON list of
-- module URLs (file: URLs for paths) or package names; empty for runs that loaded none.
ALTER TABLE state_run_documents ADD COLUMN node_kinds_json TEXT NOT NULL DEFAULT '[]';
