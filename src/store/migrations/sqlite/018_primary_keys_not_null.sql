-- The seed's single-column TEXT primary keys refuse NULL on SQLite too. SQLite lets a NULL into
-- a PRIMARY KEY column that is not also declared NOT NULL (a compatibility quirk it keeps; an
-- INTEGER PRIMARY KEY and every Postgres key are NOT NULL anyway), so 001 let a job, an
-- execution, a node, a plugin switch or a preference be stored without its key. A rebuild of
-- each table with `NOT NULL` on the key: rows, CHECKs and indexes as before. A row whose key is
-- NULL was unreachable by its key and is not carried over.

CREATE TABLE scan_nodes_rebuilt (
  path TEXT NOT NULL PRIMARY KEY,
  kind TEXT NOT NULL CONSTRAINT ck_scan_nodes_kind CHECK (kind IN ('skill', 'agent', 'command', 'hook', 'note')),
  adapter TEXT NOT NULL,
  title TEXT,
  description TEXT,
  stability TEXT CONSTRAINT ck_scan_nodes_stability CHECK (stability IN ('experimental', 'stable', 'deprecated')),
  version TEXT,
  author TEXT,
  frontmatter_json TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  frontmatter_hash TEXT NOT NULL,
  bytes_frontmatter INTEGER NOT NULL,
  bytes_body INTEGER NOT NULL,
  bytes_total INTEGER NOT NULL,
  tokens_frontmatter INTEGER,
  tokens_body INTEGER,
  tokens_total INTEGER,
  links_out_count INTEGER NOT NULL DEFAULT 0,
  links_in_count INTEGER NOT NULL DEFAULT 0,
  external_refs_count INTEGER NOT NULL DEFAULT 0,
  scanned_at INTEGER NOT NULL
);
INSERT INTO scan_nodes_rebuilt (path, kind, adapter, title, description, stability, version, author, frontmatter_json, body_hash, frontmatter_hash, bytes_frontmatter, bytes_body, bytes_total, tokens_frontmatter, tokens_body, tokens_total, links_out_count, links_in_count, external_refs_count, scanned_at)
SELECT path, kind, adapter, title, description, stability, version, author, frontmatter_json, body_hash, frontmatter_hash, bytes_frontmatter, bytes_body, bytes_total, tokens_frontmatter, tokens_body, tokens_total, links_out_count, links_in_count, external_refs_count, scanned_at FROM scan_nodes WHERE path IS NOT NULL;
DROP TABLE scan_nodes;
ALTER TABLE scan_nodes_rebuilt RENAME TO scan_nodes;
CREATE INDEX ix_scan_nodes_kind ON scan_nodes (kind);
CREATE INDEX ix_scan_nodes_adapter ON scan_nodes (adapter);
CREATE INDEX ix_scan_nodes_body_hash ON scan_nodes (body_hash);

CREATE TABLE state_jobs_rebuilt (
  id TEXT NOT NULL PRIMARY KEY,
  action_id TEXT NOT NULL,
  action_version TEXT NOT NULL,
  node_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  nonce TEXT NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL CONSTRAINT ck_state_jobs_status CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  failure_reason TEXT CONSTRAINT ck_state_jobs_failure_reason CHECK (failure_reason IN ('runner-error', 'report-invalid', 'timeout', 'abandoned', 'job-file-missing', 'user-cancelled')),
  runner TEXT CONSTRAINT ck_state_jobs_runner CHECK (runner IN ('cli', 'skill', 'in-process')),
  ttl_seconds INTEGER NOT NULL,
  file_path TEXT,
  created_at INTEGER NOT NULL,
  claimed_at INTEGER,
  finished_at INTEGER,
  expires_at INTEGER,
  submitted_by TEXT
);
INSERT INTO state_jobs_rebuilt (id, action_id, action_version, node_id, content_hash, nonce, priority, status, failure_reason, runner, ttl_seconds, file_path, created_at, claimed_at, finished_at, expires_at, submitted_by)
SELECT id, action_id, action_version, node_id, content_hash, nonce, priority, status, failure_reason, runner, ttl_seconds, file_path, created_at, claimed_at, finished_at, expires_at, submitted_by FROM state_jobs WHERE id IS NOT NULL;
DROP TABLE state_jobs;
ALTER TABLE state_jobs_rebuilt RENAME TO state_jobs;
CREATE INDEX ix_state_jobs_status ON state_jobs (status);
CREATE UNIQUE INDEX ix_state_jobs_action_node_hash ON state_jobs (action_id, action_version, node_id, content_hash)
  WHERE status IN ('queued', 'running');

CREATE TABLE state_executions_rebuilt (
  id TEXT NOT NULL PRIMARY KEY,
  kind TEXT NOT NULL CONSTRAINT ck_state_executions_kind CHECK (kind IN ('action', 'audit')),
  extension_id TEXT NOT NULL,
  extension_version TEXT NOT NULL,
  node_ids_json TEXT NOT NULL DEFAULT '[]',
  content_hash TEXT,
  status TEXT NOT NULL CONSTRAINT ck_state_executions_status CHECK (status IN ('completed', 'failed', 'cancelled')),
  failure_reason TEXT,
  exit_code INTEGER,
  runner TEXT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  duration_ms INTEGER,
  tokens_in INTEGER,
  tokens_out INTEGER,
  report_path TEXT,
  job_id TEXT
);
INSERT INTO state_executions_rebuilt (id, kind, extension_id, extension_version, node_ids_json, content_hash, status, failure_reason, exit_code, runner, started_at, finished_at, duration_ms, tokens_in, tokens_out, report_path, job_id)
SELECT id, kind, extension_id, extension_version, node_ids_json, content_hash, status, failure_reason, exit_code, runner, started_at, finished_at, duration_ms, tokens_in, tokens_out, report_path, job_id FROM state_executions WHERE id IS NOT NULL;
DROP TABLE state_executions;
ALTER TABLE state_executions_rebuilt RENAME TO state_executions;
CREATE INDEX ix_state_executions_extension_id ON state_executions (extension_id);
CREATE INDEX ix_state_executions_started_at ON state_executions (started_at);
CREATE INDEX ix_state_executions_job_id ON state_executions (job_id);

CREATE TABLE config_plugins_rebuilt (
  plugin_id TEXT NOT NULL PRIMARY KEY,
  enabled INTEGER NOT NULL DEFAULT 1 CONSTRAINT ck_config_plugins_enabled CHECK (enabled IN (0, 1)),
  config_json TEXT,
  updated_at INTEGER NOT NULL
);
INSERT INTO config_plugins_rebuilt (plugin_id, enabled, config_json, updated_at)
SELECT plugin_id, enabled, config_json, updated_at FROM config_plugins WHERE plugin_id IS NOT NULL;
DROP TABLE config_plugins;
ALTER TABLE config_plugins_rebuilt RENAME TO config_plugins;

CREATE TABLE config_preferences_rebuilt (
  key TEXT NOT NULL PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO config_preferences_rebuilt (key, value_json, updated_at)
SELECT key, value_json, updated_at FROM config_preferences WHERE key IS NOT NULL;
DROP TABLE config_preferences;
ALTER TABLE config_preferences_rebuilt RENAME TO config_preferences;
