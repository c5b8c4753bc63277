-- The skill catalog (issue 15): what `keel scan` keeps beside the seed's scan_nodes, scan_links
-- and scan_issues (whose shapes stay the spec's).
--
-- scan_files: the stamp (modification time, size) each node's file was read at, so that
-- `keel scan --changed` re-reads only files whose stamp moved.
-- scan_results: the last scan's own facts (when, which roots and adapters, files walked and
-- skipped, and the fingerprint of the extensions and settings it ran with: a different
-- fingerprint makes every stored node stale). One row.

CREATE TABLE scan_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL,
  modified_at INTEGER NOT NULL,
  file_bytes INTEGER NOT NULL
);
CREATE UNIQUE INDEX ix_scan_files_path ON scan_files (path);

CREATE TABLE scan_results (
  id INTEGER NOT NULL PRIMARY KEY CONSTRAINT ck_scan_results_id CHECK (id = 1),
  scanned_at INTEGER NOT NULL,
  scope TEXT NOT NULL CONSTRAINT ck_scan_results_scope CHECK (scope IN ('project', 'global')),
  roots_json TEXT NOT NULL,
  adapters_json TEXT NOT NULL,
  scanned_by_json TEXT,
  files_walked_count INTEGER NOT NULL,
  files_skipped_count INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  settings_hash TEXT NOT NULL
);
