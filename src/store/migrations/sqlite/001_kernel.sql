-- Kernel schema v1 (seed 004, "Database schema"): the scan_, state_ and config_ zones.
-- Up-only: never edit this file once released; add NNN_snake_case.sql instead.

-- ---------------------------------------------------------------- scan_ zone

CREATE TABLE scan_nodes (
  path TEXT PRIMARY KEY,
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
CREATE INDEX ix_scan_nodes_kind ON scan_nodes (kind);
CREATE INDEX ix_scan_nodes_adapter ON scan_nodes (adapter);
CREATE INDEX ix_scan_nodes_body_hash ON scan_nodes (body_hash);

CREATE TABLE scan_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_path TEXT NOT NULL,
  target_path TEXT NOT NULL,
  kind TEXT NOT NULL CONSTRAINT ck_scan_links_kind CHECK (kind IN ('invokes', 'references', 'mentions', 'supersedes')),
  confidence TEXT NOT NULL CONSTRAINT ck_scan_links_confidence CHECK (confidence IN ('high', 'medium', 'low')),
  sources_json TEXT NOT NULL,
  original_trigger TEXT,
  normalized_trigger TEXT,
  location_line INTEGER,
  location_column INTEGER,
  location_offset INTEGER,
  raw TEXT
);
CREATE INDEX ix_scan_links_source_path ON scan_links (source_path);
CREATE INDEX ix_scan_links_target_path ON scan_links (target_path);
CREATE INDEX ix_scan_links_normalized_trigger ON scan_links (normalized_trigger);

CREATE TABLE scan_issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id TEXT NOT NULL,
  severity TEXT NOT NULL CONSTRAINT ck_scan_issues_severity CHECK (severity IN ('error', 'warn', 'info')),
  node_ids_json TEXT NOT NULL,
  link_indices_json TEXT,
  message TEXT NOT NULL,
  detail TEXT,
  fix_json TEXT,
  data_json TEXT
);
CREATE INDEX ix_scan_issues_rule_id ON scan_issues (rule_id);
CREATE INDEX ix_scan_issues_severity ON scan_issues (severity);

-- --------------------------------------------------------------- state_ zone

CREATE TABLE state_jobs (
  id TEXT PRIMARY KEY,
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
CREATE INDEX ix_state_jobs_status ON state_jobs (status);
-- Duplicate detection: at most one active job per (action, version, node, content hash).
CREATE UNIQUE INDEX ix_state_jobs_action_node_hash ON state_jobs (action_id, action_version, node_id, content_hash)
  WHERE status IN ('queued', 'running');

CREATE TABLE state_executions (
  id TEXT PRIMARY KEY,
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
CREATE INDEX ix_state_executions_extension_id ON state_executions (extension_id);
CREATE INDEX ix_state_executions_started_at ON state_executions (started_at);
CREATE INDEX ix_state_executions_job_id ON state_executions (job_id);

CREATE TABLE state_summaries (
  node_id TEXT NOT NULL,
  kind TEXT NOT NULL CONSTRAINT ck_state_summaries_kind CHECK (kind IN ('skill', 'agent', 'command', 'hook', 'note')),
  summarizer_action_id TEXT NOT NULL,
  summarizer_version TEXT NOT NULL,
  body_hash_at_generation TEXT NOT NULL,
  generated_at INTEGER NOT NULL,
  summary_json TEXT NOT NULL,
  PRIMARY KEY (node_id, summarizer_action_id)
);
CREATE INDEX ix_state_summaries_generated_at ON state_summaries (generated_at);

CREATE TABLE state_enrichment (
  node_id TEXT NOT NULL,
  provider_id TEXT NOT NULL,
  data_json TEXT NOT NULL,
  verified INTEGER CONSTRAINT ck_state_enrichment_verified CHECK (verified IN (0, 1)),
  fetched_at INTEGER NOT NULL,
  stale_after INTEGER,
  PRIMARY KEY (node_id, provider_id)
);
CREATE INDEX ix_state_enrichment_stale_after ON state_enrichment (stale_after);

-- node_id uses '' as the "no node" sentinel so it can sit in the primary key.
CREATE TABLE state_plugin_kv (
  plugin_id TEXT NOT NULL,
  node_id TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (plugin_id, node_id, key)
);
CREATE INDEX ix_state_plugin_kv_plugin_id ON state_plugin_kv (plugin_id);

-- -------------------------------------------------------------- config_ zone

CREATE TABLE config_plugins (
  plugin_id TEXT PRIMARY KEY,
  enabled INTEGER NOT NULL DEFAULT 1 CONSTRAINT ck_config_plugins_enabled CHECK (enabled IN (0, 1)),
  config_json TEXT,
  updated_at INTEGER NOT NULL
);

CREATE TABLE config_preferences (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE config_schema_versions (
  scope TEXT NOT NULL CONSTRAINT ck_config_schema_versions_scope CHECK (scope IN ('kernel', 'plugin')),
  owner_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  description TEXT NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (scope, owner_id, version)
);
