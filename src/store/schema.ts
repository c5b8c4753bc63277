import type { Generated } from "kysely";

/**
 * Row types of the kernel tables (seed 004, "Table catalog"), as Kysely sees them. Column names
 * stay snake_case (the wire and schema names); `_at` columns are integer Unix milliseconds and
 * `_json` columns hold JSON text, on both dialects.
 *
 * Modules that add tables in their own migrations extend this interface in their own types:
 * `Kysely<KernelDatabase & CheckpointTables>` through `store.kysely.withTables<…>()`.
 */
export interface KernelDatabase {
  scan_nodes: ScanNodesTable;
  scan_links: ScanLinksTable;
  scan_issues: ScanIssuesTable;
  scan_files: ScanFilesTable;
  scan_results: ScanResultsTable;
  state_jobs: StateJobsTable;
  state_executions: StateExecutionsTable;
  state_summaries: StateSummariesTable;
  state_enrichment: StateEnrichmentTable;
  state_plugin_kv: StatePluginKvTable;
  state_plugin_failures: StatePluginFailuresTable;
  config_plugins: ConfigPluginsTable;
  config_preferences: ConfigPreferencesTable;
  config_schema_versions: ConfigSchemaVersionsTable;
}

/** The node kinds of the catalog (`scan_nodes.kind`, `state_summaries.kind`). */
export type NodeKind = "skill" | "agent" | "command" | "hook" | "note";

export interface ScanNodesTable {
  path: string;
  kind: NodeKind;
  adapter: string;
  title: string | null;
  description: string | null;
  stability: "experimental" | "stable" | "deprecated" | null;
  version: string | null;
  author: string | null;
  frontmatter_json: string;
  body_hash: string;
  frontmatter_hash: string;
  bytes_frontmatter: number;
  bytes_body: number;
  bytes_total: number;
  tokens_frontmatter: number | null;
  tokens_body: number | null;
  tokens_total: number | null;
  links_out_count: Generated<number>;
  links_in_count: Generated<number>;
  external_refs_count: Generated<number>;
  scanned_at: number;
}

export interface ScanLinksTable {
  id: Generated<number>;
  source_path: string;
  target_path: string;
  kind: "invokes" | "references" | "mentions" | "supersedes";
  confidence: "high" | "medium" | "low";
  sources_json: string;
  original_trigger: string | null;
  normalized_trigger: string | null;
  location_line: number | null;
  location_column: number | null;
  location_offset: number | null;
  raw: string | null;
}

export interface ScanIssuesTable {
  id: Generated<number>;
  rule_id: string;
  severity: "error" | "warn" | "info";
  node_ids_json: string;
  link_indices_json: string | null;
  message: string;
  detail: string | null;
  fix_json: string | null;
  data_json: string | null;
}

/** The stamp a node's file was read at (migration 022): `keel scan --changed` compares it. */
export interface ScanFilesTable {
  id: Generated<number>;
  path: string;
  modified_at: number;
  file_bytes: number;
}

/** The last scan's own facts (migration 022); one row, `id` 1. */
export interface ScanResultsTable {
  id: number;
  scanned_at: number;
  scope: "project" | "global";
  roots_json: string;
  adapters_json: string;
  scanned_by_json: string | null;
  files_walked_count: number;
  files_skipped_count: number;
  duration_ms: number;
  settings_hash: string;
}

/** The job states of the dispatch lifecycle. */
export type JobStatus = "queued" | "running" | "completed" | "failed";

/** Why a job failed (`state_jobs.failure_reason`). */
export type JobFailureReason =
  | "runner-error"
  | "report-invalid"
  | "timeout"
  | "abandoned"
  | "job-file-missing"
  | "user-cancelled";

export interface StateJobsTable {
  id: string;
  action_id: string;
  action_version: string;
  node_id: string;
  content_hash: string;
  nonce: string;
  priority: Generated<number>;
  status: JobStatus;
  failure_reason: JobFailureReason | null;
  runner: "cli" | "skill" | "in-process" | null;
  ttl_seconds: number;
  file_path: string | null;
  created_at: number;
  claimed_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  submitted_by: string | null;
  /** 1 for a `--force` submit (migration 023): outside the unique index on live jobs. */
  is_forced: Generated<number>;
  /** How many times a worker took the job over after its TTL (migration 029, in-process jobs). */
  resume_count: Generated<number>;
}

export interface StateExecutionsTable {
  id: string;
  kind: "action" | "audit";
  extension_id: string;
  extension_version: string;
  node_ids_json: Generated<string>;
  content_hash: string | null;
  status: "completed" | "failed" | "cancelled";
  failure_reason: string | null;
  exit_code: number | null;
  runner: string | null;
  started_at: number;
  finished_at: number;
  duration_ms: number | null;
  tokens_in: number | null;
  tokens_out: number | null;
  report_path: string | null;
  job_id: string | null;
  /** `keel record --error` text, verbatim (migration 023). */
  error_message: string | null;
}

export interface StateSummariesTable {
  node_id: string;
  kind: NodeKind;
  summarizer_action_id: string;
  summarizer_version: string;
  body_hash_at_generation: string;
  generated_at: number;
  summary_json: string;
}

export interface StateEnrichmentTable {
  node_id: string;
  provider_id: string;
  data_json: string;
  /** 0, 1 or null (unknown). */
  verified: 0 | 1 | null;
  fetched_at: number;
  stale_after: number | null;
}

export interface StatePluginKvTable {
  plugin_id: string;
  /** `""` means "not scoped to a node" (a primary-key column cannot be NULL everywhere). */
  node_id: Generated<string>;
  key: string;
  value_json: string;
  updated_at: number;
}

/** A plugin whose migration failed (Keel's, migration 010): `load-error` until one succeeds. */
export interface StatePluginFailuresTable {
  /** The plugin's id. */
  id: string;
  reason: string;
  failed_at: number;
}

export interface ConfigPluginsTable {
  plugin_id: string;
  enabled: Generated<0 | 1>;
  config_json: string | null;
  updated_at: number;
}

export interface ConfigPreferencesTable {
  key: string;
  value_json: string;
  updated_at: number;
}

export interface ConfigSchemaVersionsTable {
  scope: "kernel" | "plugin";
  owner_id: string;
  version: number;
  description: string;
  applied_at: number;
}

/** The three zones of seed 004; every kernel table name starts with one of these prefixes. */
export const ZONES = ["scan", "state", "config"] as const;
export type Zone = (typeof ZONES)[number];
