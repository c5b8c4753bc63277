/** Seed 004's table catalog, as the conformance suite checks it against the live schema. */

/**
 * The seed's catalog: every kernel table with its columns in order, each as
 * `name TYPE [NOT NULL] [DEFAULT x]`. Types are the seed's, with two of Keel's: `MS` is Unix
 * milliseconds (INTEGER on SQLite, BIGINT on Postgres, as docs/store.md says) and `SERIAL` the
 * seed's `INTEGER PRIMARY KEY AUTOINCREMENT` (BIGINT identity on Postgres). A primary-key
 * column is NOT NULL.
 */
export const SEED_TABLES: Record<string, string[]> = {
  scan_nodes: [
    "path TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "adapter TEXT NOT NULL",
    "title TEXT",
    "description TEXT",
    "stability TEXT",
    "version TEXT",
    "author TEXT",
    "frontmatter_json TEXT NOT NULL",
    "body_hash TEXT NOT NULL",
    "frontmatter_hash TEXT NOT NULL",
    "bytes_frontmatter INTEGER NOT NULL",
    "bytes_body INTEGER NOT NULL",
    "bytes_total INTEGER NOT NULL",
    "tokens_frontmatter INTEGER",
    "tokens_body INTEGER",
    "tokens_total INTEGER",
    "links_out_count INTEGER NOT NULL DEFAULT 0",
    "links_in_count INTEGER NOT NULL DEFAULT 0",
    "external_refs_count INTEGER NOT NULL DEFAULT 0",
    "scanned_at MS NOT NULL",
  ],
  scan_links: [
    "id SERIAL NOT NULL",
    "source_path TEXT NOT NULL",
    "target_path TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "confidence TEXT NOT NULL",
    "sources_json TEXT NOT NULL",
    "original_trigger TEXT",
    "normalized_trigger TEXT",
    "location_line INTEGER",
    "location_column INTEGER",
    "location_offset INTEGER",
    "raw TEXT",
  ],
  scan_issues: [
    "id SERIAL NOT NULL",
    "rule_id TEXT NOT NULL",
    "severity TEXT NOT NULL",
    "node_ids_json TEXT NOT NULL",
    "link_indices_json TEXT",
    "message TEXT NOT NULL",
    "detail TEXT",
    "fix_json TEXT",
    "data_json TEXT",
  ],
  state_jobs: [
    "id TEXT NOT NULL",
    "action_id TEXT NOT NULL",
    "action_version TEXT NOT NULL",
    "node_id TEXT NOT NULL",
    "content_hash TEXT NOT NULL",
    "nonce TEXT NOT NULL",
    "priority INTEGER NOT NULL DEFAULT 0",
    "status TEXT NOT NULL",
    "failure_reason TEXT",
    "runner TEXT",
    "ttl_seconds INTEGER NOT NULL",
    "file_path TEXT",
    "created_at MS NOT NULL",
    "claimed_at MS",
    "finished_at MS",
    "expires_at MS",
    "submitted_by TEXT",
  ],
  state_executions: [
    "id TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "extension_id TEXT NOT NULL",
    "extension_version TEXT NOT NULL",
    "node_ids_json TEXT NOT NULL DEFAULT '[]'",
    "content_hash TEXT",
    "status TEXT NOT NULL",
    "failure_reason TEXT",
    "exit_code INTEGER",
    "runner TEXT",
    "started_at MS NOT NULL",
    "finished_at MS NOT NULL",
    "duration_ms MS",
    "tokens_in INTEGER",
    "tokens_out INTEGER",
    "report_path TEXT",
    "job_id TEXT",
  ],
  state_summaries: [
    "node_id TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "summarizer_action_id TEXT NOT NULL",
    "summarizer_version TEXT NOT NULL",
    "body_hash_at_generation TEXT NOT NULL",
    "generated_at MS NOT NULL",
    "summary_json TEXT NOT NULL",
  ],
  state_enrichment: [
    "node_id TEXT NOT NULL",
    "provider_id TEXT NOT NULL",
    "data_json TEXT NOT NULL",
    "verified INTEGER",
    "fetched_at MS NOT NULL",
    "stale_after MS",
  ],
  // node_id: the seed's column is NULL-able with '' as the sentinel in the key; Keel stores
  // the sentinel, so the column is NOT NULL DEFAULT '' (docs/store.md, Zones and naming).
  state_plugin_kv: [
    "plugin_id TEXT NOT NULL",
    "node_id TEXT NOT NULL DEFAULT ''",
    "key TEXT NOT NULL",
    "value_json TEXT NOT NULL",
    "updated_at MS NOT NULL",
  ],
  config_plugins: [
    "plugin_id TEXT NOT NULL",
    "enabled INTEGER NOT NULL DEFAULT 1",
    "config_json TEXT",
    "updated_at MS NOT NULL",
  ],
  config_preferences: ["key TEXT NOT NULL", "value_json TEXT NOT NULL", "updated_at MS NOT NULL"],
  config_schema_versions: [
    "scope TEXT NOT NULL",
    "owner_id TEXT NOT NULL",
    "version INTEGER NOT NULL",
    "description TEXT NOT NULL",
    "applied_at MS NOT NULL",
  ],
};

/** One seed column as the live schema of `dialect` must show it. */
export interface ExpectedColumn {
  name: string;
  type: string;
  notNull: boolean;
  defaultValue: string | null;
}

/** The columns of a seed table as `dialect` stores them. */
export function expectedColumns(table: string, dialect: "sqlite" | "postgres"): ExpectedColumn[] {
  return (SEED_TABLES[table] ?? []).map((spec) => {
    const [name = "", seedType = ""] = spec.split(" ");
    const wide = seedType === "MS" || seedType === "SERIAL";
    return {
      name,
      type: wide ? (dialect === "postgres" ? "BIGINT" : "INTEGER") : seedType,
      notNull: spec.includes("NOT NULL"),
      defaultValue: /DEFAULT (.+)$/.exec(spec)?.[1] ?? null,
    };
  });
}

/** A default as the engine reports it, without Postgres's casts (`'[]'::text` → `'[]'`). */
export function normalizeDefault(value: string | null): string | null {
  return value === null ? null : value.replace(/::[a-z ]+$/i, "");
}

/** The seed's catalog: every kernel table with its column names, in order. */
export const SEED_CATALOG: Record<string, string[]> = Object.fromEntries(
  Object.entries(SEED_TABLES).map(([table, columns]) => [
    table,
    columns.map((spec) => spec.split(" ")[0] ?? ""),
  ]),
);

/** The seed's named indexes. */
export const SEED_INDEXES: Record<string, string[]> = {
  scan_nodes: ["ix_scan_nodes_kind", "ix_scan_nodes_adapter", "ix_scan_nodes_body_hash"],
  scan_links: [
    "ix_scan_links_source_path",
    "ix_scan_links_target_path",
    "ix_scan_links_normalized_trigger",
  ],
  scan_issues: ["ix_scan_issues_rule_id", "ix_scan_issues_severity"],
  state_jobs: ["ix_state_jobs_status", "ix_state_jobs_action_node_hash"],
  state_executions: [
    "ix_state_executions_extension_id",
    "ix_state_executions_started_at",
    "ix_state_executions_job_id",
  ],
  state_summaries: ["ix_state_summaries_generated_at"],
  state_enrichment: ["ix_state_enrichment_stale_after"],
  state_plugin_kv: ["ix_state_plugin_kv_plugin_id"],
};

export function job(id: string, status: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    action_id: "summarize",
    action_version: "1.0.0",
    node_id: "skills/hello.md",
    content_hash: "abc123",
    nonce: `nonce-${id}`,
    status,
    ttl_seconds: 60,
    created_at: 1_700_000_000_000,
    ...overrides,
  } as never;
}

/** A row every CHECK of its table accepts. */
const VALID_ROWS: Record<string, Record<string, unknown>> = {
  scan_nodes: {
    path: "skills/a.md",
    kind: "skill",
    adapter: "claude",
    frontmatter_json: "{}",
    body_hash: "00",
    frontmatter_hash: "00",
    bytes_frontmatter: 1,
    bytes_body: 1,
    bytes_total: 2,
    scanned_at: 1,
  },
  scan_links: {
    source_path: "a",
    target_path: "b",
    kind: "invokes",
    confidence: "high",
    sources_json: "[]",
  },
  scan_issues: { rule_id: "r", severity: "info", node_ids_json: "[]", message: "m" },
  state_jobs: job("valid", "queued") as Record<string, unknown>,
  state_executions: {
    id: "e1",
    kind: "action",
    extension_id: "x",
    extension_version: "1",
    status: "completed",
    started_at: 1,
    finished_at: 2,
  },
  state_summaries: {
    node_id: "skills/a.md",
    kind: "skill",
    summarizer_action_id: "s",
    summarizer_version: "1",
    body_hash_at_generation: "00",
    generated_at: 1,
    summary_json: "{}",
  },
  state_enrichment: {
    node_id: "skills/a.md",
    provider_id: "p",
    data_json: "{}",
    verified: 1,
    fetched_at: 1,
  },
  config_plugins: { plugin_id: "p", enabled: 1, updated_at: 1 },
  config_schema_versions: {
    scope: "plugin",
    owner_id: "p",
    version: 1,
    description: "d",
    applied_at: 1,
  },
};

/** Every CHECK of the seed's catalog, with a value that breaks it. */
export const SEED_CHECKS: { table: string; check: string; bad: Record<string, unknown> }[] = [
  { table: "scan_nodes", check: "ck_scan_nodes_kind", bad: { kind: "widget" } },
  { table: "scan_nodes", check: "ck_scan_nodes_stability", bad: { stability: "beta" } },
  { table: "scan_links", check: "ck_scan_links_kind", bad: { kind: "links-to" } },
  { table: "scan_links", check: "ck_scan_links_confidence", bad: { confidence: "certain" } },
  { table: "scan_issues", check: "ck_scan_issues_severity", bad: { severity: "fatal" } },
  { table: "state_jobs", check: "ck_state_jobs_status", bad: { status: "paused" } },
  { table: "state_jobs", check: "ck_state_jobs_failure_reason", bad: { failure_reason: "oops" } },
  { table: "state_jobs", check: "ck_state_jobs_runner", bad: { runner: "robot" } },
  { table: "state_executions", check: "ck_state_executions_kind", bad: { kind: "job" } },
  { table: "state_executions", check: "ck_state_executions_status", bad: { status: "running" } },
  { table: "state_summaries", check: "ck_state_summaries_kind", bad: { kind: "widget" } },
  { table: "state_enrichment", check: "ck_state_enrichment_verified", bad: { verified: 2 } },
  { table: "config_plugins", check: "ck_config_plugins_enabled", bad: { enabled: 2 } },
  {
    table: "config_schema_versions",
    check: "ck_config_schema_versions_scope",
    bad: { scope: "app" },
  },
];

/** A row of `table` that satisfies its CHECKs, with `overrides` applied. */
export function validRow(
  table: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...VALID_ROWS[table], ...overrides };
}
