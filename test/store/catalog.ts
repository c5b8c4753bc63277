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
    // Keel's (migration 023): a --force submit stays outside the unique index on live jobs.
    "is_forced INTEGER NOT NULL DEFAULT 0",
    // Keel's (migration 029): take-overs of a crashed in-process job.
    "resume_count INTEGER NOT NULL DEFAULT 0",
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
    // Keel's (migration 023): `keel record --error` text.
    "error_message TEXT",
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

/**
 * Keel's own kernel tables (migrations 002 onwards: checkpoints, runs, the runtime), in the same
 * form; `BIG` is an integer that may pass 32 bits (INTEGER on SQLite, BIGINT on Postgres). A
 * migration that adds or changes a kernel table changes this list in the same commit: the
 * conformance suite compares it with the live schema of both dialects, table for table.
 */
export const KEEL_TABLES: Record<string, string[]> = {
  state_approvals: [
    "id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "event_id TEXT",
    "task_id TEXT",
    "step_id TEXT",
    "status TEXT NOT NULL",
    "risk_level TEXT NOT NULL",
    "autonomy_level TEXT NOT NULL",
    "what_json TEXT NOT NULL",
    "why TEXT NOT NULL",
    "how_to_approve TEXT NOT NULL",
    "required_capability TEXT",
    "decided_by TEXT",
    "decided_at MS",
    "decision_reason TEXT",
    "decision_capability TEXT",
    "created_at MS NOT NULL",
    "expires_at MS NOT NULL",
    "gate_key TEXT",
    "request_hash TEXT",
    // the decider's answer to an IR interrupt (021_trust.sql)
    "answer_json TEXT",
  ],
  state_artifacts: [
    "id TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "content_hash TEXT NOT NULL",
    "body_json TEXT NOT NULL",
    "byte_count BIG NOT NULL",
    "created_at MS NOT NULL",
  ],
  state_audit_events: [
    "id TEXT NOT NULL",
    "seq BIG NOT NULL",
    "trace_id TEXT NOT NULL",
    "stage TEXT NOT NULL",
    "type TEXT NOT NULL",
    "summary TEXT NOT NULL",
    "outcome TEXT NOT NULL",
    "event_id TEXT",
    "task_id TEXT",
    "step_id TEXT",
    "tool_call_id TEXT",
    "approval_id TEXT",
    "latency_ms MS",
    "tool_name TEXT",
    "connector_id TEXT",
    "risk_level TEXT",
    "autonomy_level TEXT",
    "payload_ref TEXT",
    "recorded_at MS NOT NULL",
    "prev_hash TEXT NOT NULL",
    "event_hash TEXT NOT NULL",
    "payload_hash TEXT",
  ],
  state_audit_heads: [
    "id TEXT NOT NULL",
    "last_seq BIG NOT NULL",
    "last_hash TEXT NOT NULL",
    "updated_at MS NOT NULL",
  ],
  state_checkpoint_blobs: [
    "thread_id TEXT NOT NULL",
    "checkpoint_ns TEXT NOT NULL DEFAULT ''",
    "channel TEXT NOT NULL",
    "checkpoint_seq INTEGER NOT NULL",
    "version TEXT NOT NULL",
    "encoding TEXT NOT NULL",
    "base_checkpoint_seq INTEGER",
    "chain_count INTEGER NOT NULL DEFAULT 0",
    "value_json TEXT",
    "value_hash TEXT NOT NULL",
  ],
  state_checkpoint_writes: [
    "thread_id TEXT NOT NULL",
    "checkpoint_ns TEXT NOT NULL DEFAULT ''",
    "checkpoint_id TEXT NOT NULL",
    "task_id TEXT NOT NULL",
    "idx INTEGER NOT NULL",
    "task_path TEXT NOT NULL DEFAULT ''",
    "channel TEXT NOT NULL",
    "value_json TEXT",
    "value_hash TEXT NOT NULL",
  ],
  state_checkpoints: [
    "thread_id TEXT NOT NULL",
    "checkpoint_ns TEXT NOT NULL DEFAULT ''",
    "id TEXT NOT NULL",
    "seq INTEGER NOT NULL",
    "parent_checkpoint_id TEXT",
    "format_version INTEGER NOT NULL",
    "step INTEGER NOT NULL",
    "source TEXT NOT NULL",
    "checkpoint_json TEXT NOT NULL",
    "channel_seqs_json TEXT NOT NULL",
    "metadata_json TEXT NOT NULL",
    "created_at MS NOT NULL",
    // Keel's (migration 032): a row whose id sorted below its place's greatest when written.
    "is_below_latest INTEGER NOT NULL DEFAULT 0",
  ],
  state_dedupe_keys: [
    "id TEXT NOT NULL",
    "event_id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "claimed_at MS NOT NULL",
    "expires_at MS NOT NULL",
  ],
  state_events: [
    "id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "channel TEXT NOT NULL",
    "connector_id TEXT NOT NULL",
    "dedupe_key TEXT",
    "event_json TEXT NOT NULL",
    "occurred_at MS NOT NULL",
    "ingested_at MS NOT NULL",
  ],
  state_plugin_failures: ["id TEXT NOT NULL", "reason TEXT NOT NULL", "failed_at MS NOT NULL"],
  state_run_documents: [
    "run_id TEXT NOT NULL",
    "document_path TEXT NOT NULL",
    "document_id TEXT NOT NULL",
    "graph_hash TEXT NOT NULL",
    "input_json TEXT NOT NULL",
    "packs_dir TEXT",
    "created_at MS NOT NULL",
    "node_kinds_json TEXT NOT NULL DEFAULT '[]'",
  ],
  state_run_grants: [
    "id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "event_id TEXT",
    "autonomy_level TEXT NOT NULL",
    "risk_level TEXT NOT NULL",
    "tool_profile TEXT NOT NULL",
    "capabilities_json TEXT NOT NULL DEFAULT '[]'",
    "routing_json TEXT",
    "handler TEXT",
    "input_json TEXT NOT NULL DEFAULT 'null'",
    "created_at MS NOT NULL",
    "gate_demands_json TEXT NOT NULL DEFAULT '[]'",
    "approval_ttl_seconds INTEGER",
    "app_module TEXT",
  ],
  state_runs: [
    "id TEXT NOT NULL",
    "thread_id TEXT NOT NULL",
    "status TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "graph_id TEXT",
    "trigger_event_id TEXT",
    "autonomy_level_at_start TEXT",
    "labels_json TEXT NOT NULL DEFAULT '[]'",
    "input_json TEXT",
    "error_json TEXT",
    "cancel_reason TEXT",
    "next_wake_at MS",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
    "started_at MS",
    "finished_at MS",
  ],
  state_steps: [
    "id TEXT NOT NULL",
    "run_id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "task_key TEXT NOT NULL",
    "name TEXT NOT NULL",
    "visit INTEGER NOT NULL",
    "status TEXT NOT NULL",
    "attempt INTEGER NOT NULL DEFAULT 0",
    "max_attempts INTEGER NOT NULL DEFAULT 1",
    "retry_policy_json TEXT NOT NULL",
    "input_json TEXT NOT NULL",
    "checkpoint_json TEXT NOT NULL DEFAULT '{}'",
    "output_json TEXT",
    "idempotency_key TEXT",
    "error_json TEXT",
    "next_wake_at MS",
    "started_at MS",
    "ended_at MS",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
  ],
  state_threads: [
    "id TEXT NOT NULL",
    "lease_owner TEXT",
    "lease_expires_at MS",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
  ],
  state_tool_calls: [
    "id TEXT NOT NULL",
    "trace_id TEXT NOT NULL",
    "task_id TEXT",
    "step_id TEXT",
    "event_id TEXT",
    "connector_id TEXT NOT NULL",
    "tool_name TEXT NOT NULL",
    "tool_version TEXT NOT NULL",
    "action TEXT NOT NULL",
    "request_hash TEXT NOT NULL",
    "request_artifact_id TEXT",
    "idempotency_key TEXT NOT NULL",
    "status TEXT NOT NULL",
    "latency_ms MS",
    "risk_level TEXT NOT NULL",
    "autonomy_level TEXT NOT NULL",
    "result_status TEXT",
    "response_hash TEXT",
    "result_artifact_id TEXT",
    "error_json TEXT",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
    "resolved_at MS",
    "cost_estimate TEXT",
    "lease_owner TEXT",
    "lease_expires_at MS",
    "request_json TEXT",
    "live_key TEXT",
    "fence BIG",
  ],
  // decision memory (024_memory.sql)
  state_memory_records: [
    "id TEXT NOT NULL",
    "seq BIG NOT NULL",
    "namespace TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "source TEXT NOT NULL",
    "status TEXT NOT NULL",
    "target TEXT NOT NULL",
    "title TEXT NOT NULL",
    "rationale TEXT NOT NULL",
    "content TEXT NOT NULL",
    "keywords TEXT NOT NULL DEFAULT ''",
    "context_json TEXT NOT NULL",
    "superseded_by_memory_record_id TEXT",
    "phase TEXT NOT NULL DEFAULT 'pattern'",
    "vitality TEXT NOT NULL DEFAULT 'active'",
    "scope TEXT NOT NULL DEFAULT 'local'",
    "provenance TEXT NOT NULL DEFAULT 'internal'",
    "confidence FLOAT NOT NULL",
    "hit_count BIG NOT NULL DEFAULT 0",
    "stream_json TEXT NOT NULL DEFAULT '{}'",
    "last_hit_at MS",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
  ],
  state_memory_revisions: [
    "id SERIAL NOT NULL",
    "memory_record_id TEXT NOT NULL",
    "change TEXT NOT NULL",
    "status TEXT NOT NULL",
    "superseded_by_memory_record_id TEXT",
    "context_json TEXT NOT NULL",
    "confidence FLOAT NOT NULL",
    "recorded_at MS NOT NULL",
  ],
  state_memory_events: [
    "id SERIAL NOT NULL",
    "namespace TEXT NOT NULL",
    "source TEXT NOT NULL",
    "kind TEXT NOT NULL",
    "status TEXT NOT NULL DEFAULT 'active'",
    "content TEXT NOT NULL",
    "context_json TEXT NOT NULL",
    "content_hash TEXT NOT NULL",
    "memory_record_id TEXT",
    "occurred_at MS NOT NULL",
    "created_at MS NOT NULL",
  ],
  state_memory_vectors: [
    "memory_record_id TEXT NOT NULL",
    "model TEXT NOT NULL",
    "dimension_count INTEGER NOT NULL",
    "vector_json TEXT NOT NULL",
    "created_at MS NOT NULL",
  ],
  // the catalog's (migration 022): file stamps for `scan --changed`, the last scan's facts
  scan_files: [
    "id SERIAL NOT NULL",
    "path TEXT NOT NULL",
    "modified_at MS NOT NULL",
    "file_bytes BIG NOT NULL",
  ],
  scan_results: [
    "id INTEGER NOT NULL",
    "scanned_at MS NOT NULL",
    "scope TEXT NOT NULL",
    "roots_json TEXT NOT NULL",
    "adapters_json TEXT NOT NULL",
    "scanned_by_json TEXT",
    "files_walked_count INTEGER NOT NULL",
    "files_skipped_count INTEGER NOT NULL",
    "duration_ms MS NOT NULL",
    "settings_hash TEXT NOT NULL",
  ],
  // keel serve (025_server.sql): API tokens, and the LangGraph-compatible API's threads and runs
  config_api_tokens: [
    "id TEXT NOT NULL",
    "name TEXT NOT NULL",
    "token_hash TEXT NOT NULL",
    "capabilities_json TEXT NOT NULL",
    "created_at MS NOT NULL",
    "expires_at MS",
    "revoked_at MS",
  ],
  state_api_threads: [
    "id TEXT NOT NULL",
    "metadata_json TEXT NOT NULL",
    "created_at MS NOT NULL",
    "updated_at MS NOT NULL",
  ],
  state_api_runs: [
    "id TEXT NOT NULL",
    "thread_id TEXT NOT NULL",
    "assistant_id TEXT NOT NULL",
    "kwargs_json TEXT NOT NULL",
    "metadata_json TEXT NOT NULL",
    "created_at MS NOT NULL",
  ],
};

/** Every kernel table: the seed's and Keel's. */
export const KERNEL_TABLES: Record<string, string[]> = { ...SEED_TABLES, ...KEEL_TABLES };

/** One seed column as the live schema of `dialect` must show it. */
export interface ExpectedColumn {
  name: string;
  type: string;
  notNull: boolean;
  defaultValue: string | null;
}

/**
 * Columns one dialect has and the other does not (none since migration 032 moved Postgres's
 * full-text vector out of state_memory_records).
 */
export const DIALECT_COLUMNS: Record<"sqlite" | "postgres", Record<string, string[]>> = {
  sqlite: {},
  postgres: {},
};

/**
 * Tables one dialect has and the other does not: Postgres keeps the full-text vector of each
 * memory record in state_memory_texts (migration 032); on SQLite that name is the FTS5 table,
 * a virtual table outside the snapshot.
 */
export const DIALECT_TABLES: Record<"sqlite" | "postgres", Record<string, string[]>> = {
  sqlite: {},
  postgres: {
    state_memory_texts: [
      "memory_record_id TEXT NOT NULL",
      "namespace TEXT NOT NULL",
      "seq BIG NOT NULL",
      "search_vector TSVECTOR NOT NULL",
    ],
  },
};

/** Every table of `dialect`'s kernel: the shared ones and its own. */
export function dialectTables(dialect: "sqlite" | "postgres"): string[] {
  return [...Object.keys(KERNEL_TABLES), ...Object.keys(DIALECT_TABLES[dialect])];
}

/** The columns of a seed table as `dialect` stores them. */
export function expectedColumns(table: string, dialect: "sqlite" | "postgres"): ExpectedColumn[] {
  return [
    ...(KERNEL_TABLES[table] ?? DIALECT_TABLES[dialect][table] ?? []),
    ...(DIALECT_COLUMNS[dialect][table] ?? []),
  ].map((spec) => {
    const [name = "", seedType = ""] = spec.split(" ");
    const wide = seedType === "MS" || seedType === "SERIAL" || seedType === "BIG";
    return {
      name,
      // FLOAT: a double, declared DOUBLE PRECISION on both engines (REAL is 4 bytes on Postgres).
      type: wide
        ? dialect === "postgres"
          ? "BIGINT"
          : "INTEGER"
        : seedType === "FLOAT"
          ? "DOUBLE PRECISION"
          : seedType,
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

/** An index as the live schema shows it (constraint-backed ones, the keys, are not listed). */
export interface IndexSpec {
  name: string;
  columns: string[];
  unique?: true;
  /** Has a WHERE condition (a partial index). */
  partial?: true;
}

const ix = (name: string, columns: string[], flags: { unique?: true; partial?: true } = {}) => ({
  name,
  columns,
  ...flags,
});

/**
 * Every index of the kernel, the seed's and Keel's, the same on both dialects: an index is a
 * page written on every commit that touches its table (docs/runtime.md, the ledger's write path),
 * so one added or lost by a migration must show up here. Tables without one are left out.
 */
export const KERNEL_INDEXES: Record<string, IndexSpec[]> = {
  scan_issues: [
    ix("ix_scan_issues_rule_id", ["rule_id"]),
    ix("ix_scan_issues_severity", ["severity"]),
  ],
  scan_links: [
    ix("ix_scan_links_normalized_trigger", ["normalized_trigger"]),
    ix("ix_scan_links_source_path", ["source_path"]),
    ix("ix_scan_links_target_path", ["target_path"]),
  ],
  scan_files: [ix("ix_scan_files_path", ["path"], { unique: true })],
  config_api_tokens: [ix("ix_config_api_tokens_token_hash", ["token_hash"], { unique: true })],
  state_api_threads: [ix("ix_state_api_threads_updated_at_id", ["updated_at", "id"])],
  state_api_runs: [ix("ix_state_api_runs_thread_id_created_at", ["thread_id", "created_at"])],
  scan_nodes: [
    ix("ix_scan_nodes_adapter", ["adapter"]),
    ix("ix_scan_nodes_body_hash", ["body_hash"]),
    ix("ix_scan_nodes_kind", ["kind"]),
  ],
  state_approvals: [
    ix("ix_state_approvals_status_expires_at", ["status", "expires_at"]),
    ix("ix_state_approvals_task_id_gate_key", ["task_id", "gate_key"]),
    ix("ix_state_approvals_trace_id", ["trace_id"]),
  ],
  state_audit_events: [ix("ix_state_audit_events_trace_id_seq", ["trace_id", "seq"])],
  state_dedupe_keys: [ix("ix_state_dedupe_keys_expires_at", ["expires_at"])],
  state_enrichment: [ix("ix_state_enrichment_stale_after", ["stale_after"])],
  state_events: [
    ix("ix_state_events_ingested_at", ["ingested_at"]),
    ix("ix_state_events_trace_id", ["trace_id"]),
  ],
  state_executions: [
    ix("ix_state_executions_extension_id", ["extension_id"]),
    ix("ix_state_executions_job_id", ["job_id"]),
    ix("ix_state_executions_started_at", ["started_at"]),
  ],
  state_jobs: [
    ix(
      "ix_state_jobs_action_node_hash",
      ["action_id", "action_version", "node_id", "content_hash"],
      {
        unique: true,
        partial: true,
      },
    ),
    ix("ix_state_jobs_expires_at", ["expires_at"], { partial: true }),
    ix("ix_state_jobs_priority_created_at_id", ["priority", "created_at", "id"], { partial: true }),
    ix("ix_state_jobs_status", ["status"]),
  ],
  state_plugin_kv: [ix("ix_state_plugin_kv_plugin_id", ["plugin_id"])],
  state_run_grants: [ix("ix_state_run_grants_trace_id", ["trace_id"])],
  state_checkpoints: [
    ix("ix_state_checkpoints_thread_id_checkpoint_ns_seq", ["thread_id", "checkpoint_ns", "seq"], {
      partial: true,
    }),
  ],
  state_runs: [
    ix("ix_state_runs_created_at", ["created_at"]),
    ix("ix_state_runs_status_updated_at", ["status", "updated_at"]),
    ix("ix_state_runs_thread_id_created_at", ["thread_id", "created_at"]),
    ix("ix_state_runs_thread_id", ["thread_id"], { partial: true }),
  ],
  state_steps: [
    ix("ix_state_steps_run_id_name_visit", ["run_id", "name", "visit"]),
    ix("ix_state_steps_run_id_task_key", ["run_id", "task_key"], { unique: true }),
  ],
  state_summaries: [ix("ix_state_summaries_generated_at", ["generated_at"])],
  state_threads: [
    ix("ix_state_threads_updated_at_id_covering", [
      "updated_at",
      "id",
      "lease_owner",
      "lease_expires_at",
      "created_at",
    ]),
  ],
  state_tool_calls: [
    ix("ix_state_tool_calls_status", ["status"], { partial: true }),
    ix("ix_state_tool_calls_task_id", ["task_id"], { partial: true }),
    ix("ix_state_tool_calls_tool_name_live_key", ["tool_name", "live_key"], {
      unique: true,
      partial: true,
    }),
  ],
  state_memory_events: [
    ix("ix_state_memory_events_content_hash", ["content_hash"], { unique: true }),
    ix("ix_state_memory_events_kind_occurred_at", ["kind", "occurred_at"]),
    ix("ix_state_memory_events_memory_record_id", ["memory_record_id"]),
  ],
  state_memory_records: [
    ix("ix_state_memory_records_namespace_status", ["namespace", "status"]),
    ix("ix_state_memory_records_namespace_target", ["namespace", "target"], {
      unique: true,
      partial: true,
    }),
    ix("ix_state_memory_records_seq", ["seq"], { unique: true }),
    ix("ix_state_memory_records_superseded_by_memory_record_id", [
      "superseded_by_memory_record_id",
    ]),
  ],
  state_memory_revisions: [ix("ix_state_memory_revisions_memory_record_id", ["memory_record_id"])],
};

/**
 * Indexes one dialect has and the other does not: full text is an FTS5 virtual table on SQLite
 * (outside the snapshot, like its shadow tables), whose matches search joins to their namespace
 * through (seq, namespace); on Postgres a GIN index on state_memory_texts, walked by
 * (namespace, seq) (migration 032).
 */
export const DIALECT_INDEXES: Record<"sqlite" | "postgres", Record<string, IndexSpec[]>> = {
  sqlite: {
    state_memory_records: [ix("ix_state_memory_records_seq_namespace", ["seq", "namespace"])],
    // Migration 035: the checkpoint tables are rowid tables on SQLite, their old primary keys
    // unique indexes (Postgres keeps the primary keys).
    state_checkpoints: [
      ix("ix_state_checkpoints_thread_id_checkpoint_ns_id", ["thread_id", "checkpoint_ns", "id"], {
        unique: true,
      }),
    ],
    state_checkpoint_blobs: [
      ix(
        "ix_state_checkpoint_blobs_thread_id_checkpoint_ns_checkpoint_seq_channel",
        ["thread_id", "checkpoint_ns", "checkpoint_seq", "channel"],
        { unique: true },
      ),
    ],
  },
  postgres: {
    state_memory_texts: [
      ix("ix_state_memory_texts_namespace_seq", ["namespace", "seq"]),
      ix("ix_state_memory_texts_search_vector", ["search_vector"]),
    ],
  },
};

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

/** The values a valid row needs beyond the filler `validRow` makes: each CHECK accepts them. */
const VALID_ROWS: Record<string, Record<string, unknown>> = {
  scan_results: { id: 1, scope: "project" },
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
  state_approvals: {
    status: "pending",
    risk_level: "low",
    autonomy_level: "a1",
    created_at: 1,
    expires_at: 2,
  },
  state_artifacts: { kind: "tool-request" },
  state_audit_events: { stage: "route", outcome: "info" },
  state_checkpoint_blobs: { encoding: "full" },
  state_checkpoints: { source: "input" },
  state_events: { channel: "webhook" },
  state_run_grants: { autonomy_level: "a1", risk_level: "low", tool_profile: "default" },
  state_runs: { status: "pending" },
  state_steps: { status: "pending" },
  state_tool_calls: {
    status: "attempted",
    risk_level: "low",
    autonomy_level: "a1",
    idempotency_key: "k",
    live_key: "k",
    request_json: "{}",
  },
  state_memory_records: {
    kind: "decision",
    source: "agent",
    status: "active",
    target: "xyz",
    context_json: "{}",
  },
  state_memory_revisions: { change: "created", context_json: "{}" },
  state_memory_events: { source: "agent", kind: "error", context_json: "{}" },
  state_memory_vectors: { vector_json: "[]" },
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

/** Every CHECK of Keel's own kernel tables, with a value that breaks it. */
export const KEEL_CHECKS: { table: string; check: string; bad: Record<string, unknown> }[] = [
  { table: "state_jobs", check: "ck_state_jobs_is_forced", bad: { is_forced: 2 } },
  {
    table: "state_checkpoints",
    check: "ck_state_checkpoints_is_below_latest",
    bad: { is_below_latest: 2 },
  },
  { table: "state_jobs", check: "ck_state_jobs_resume_count", bad: { resume_count: -1 } },
  { table: "state_approvals", check: "ck_state_approvals_status", bad: { status: "maybe" } },
  { table: "state_approvals", check: "ck_state_approvals_risk_level", bad: { risk_level: "dire" } },
  {
    table: "state_approvals",
    check: "ck_state_approvals_autonomy_level",
    bad: { autonomy_level: "a5" },
  },
  {
    table: "state_approvals",
    check: "ck_state_approvals_expires_at",
    bad: { created_at: 5, expires_at: 5 },
  },
  { table: "state_artifacts", check: "ck_state_artifacts_kind", bad: { kind: "tool-log" } },
  { table: "state_audit_events", check: "ck_state_audit_events_stage", bad: { stage: "plan" } },
  {
    table: "state_audit_events",
    check: "ck_state_audit_events_outcome",
    bad: { outcome: "partial" },
  },
  {
    table: "state_audit_events",
    check: "ck_state_audit_events_risk_level",
    bad: { risk_level: "none" },
  },
  {
    table: "state_audit_events",
    check: "ck_state_audit_events_autonomy_level",
    bad: { autonomy_level: "A1" },
  },
  {
    table: "state_checkpoint_blobs",
    check: "ck_state_checkpoint_blobs_encoding",
    bad: { encoding: "delta" },
  },
  { table: "state_checkpoints", check: "ck_state_checkpoints_source", bad: { source: "resume" } },
  { table: "state_events", check: "ck_state_events_channel", bad: { channel: "pager" } },
  {
    table: "state_run_grants",
    check: "ck_state_run_grants_autonomy_level",
    bad: { autonomy_level: "a9" },
  },
  { table: "state_run_grants", check: "ck_state_run_grants_risk_level", bad: { risk_level: "" } },
  {
    table: "state_run_grants",
    check: "ck_state_run_grants_tool_profile",
    bad: { tool_profile: "open" },
  },
  { table: "state_runs", check: "ck_state_runs_status", bad: { status: "cancelled" } },
  { table: "state_steps", check: "ck_state_steps_status", bad: { status: "canceled" } },
  { table: "state_tool_calls", check: "ck_state_tool_calls_status", bad: { status: "pending" } },
  {
    table: "state_tool_calls",
    check: "ck_state_tool_calls_result_status",
    bad: { result_status: "unknown" },
  },
  {
    table: "state_tool_calls",
    check: "ck_state_tool_calls_risk_level",
    bad: { risk_level: "LOW" },
  },
  {
    table: "state_tool_calls",
    check: "ck_state_tool_calls_autonomy_level",
    bad: { autonomy_level: "a" },
  },
  {
    table: "state_tool_calls",
    check: "ck_state_tool_calls_idempotency_key",
    bad: { idempotency_key: "", live_key: "" },
  },
  { table: "state_tool_calls", check: "ck_state_tool_calls_request", bad: { request_json: null } },
  { table: "state_tool_calls", check: "ck_state_tool_calls_live_key", bad: { live_key: "other" } },
  { table: "scan_results", check: "ck_scan_results_id", bad: { id: 2 } },
  { table: "scan_results", check: "ck_scan_results_scope", bad: { scope: "team" } },
];

/** Every CHECK of every kernel table. */
/** The decision memory's CHECKs (024_memory.sql), with a value that breaks each. */
const MEMORY_CHECKS: { table: string; check: string; bad: Record<string, unknown> }[] = [
  { table: "state_memory_records", check: "ck_state_memory_records_kind", bad: { kind: "widget" } },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_source",
    bad: { source: "robot" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_status",
    bad: { status: "maybe" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_phase",
    bad: { phase: "mature" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_vitality",
    bad: { vitality: "dead" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_scope",
    bad: { scope: "galaxy" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_provenance",
    bad: { provenance: "alien" },
  },
  {
    table: "state_memory_records",
    check: "ck_state_memory_records_superseded_link",
    bad: { status: "superseded" },
  },
  { table: "state_memory_records", check: "ck_state_memory_records_target", bad: { target: "ab" } },
  {
    table: "state_memory_revisions",
    check: "ck_state_memory_revisions_change",
    bad: { change: "deleted" },
  },
  {
    table: "state_memory_events",
    check: "ck_state_memory_events_source",
    bad: { source: "robot" },
  },
  { table: "state_memory_events", check: "ck_state_memory_events_kind", bad: { kind: "chat" } },
  { table: "state_memory_events", check: "ck_state_memory_events_status", bad: { status: "gone" } },
];

export const KERNEL_CHECKS = [...SEED_CHECKS, ...KEEL_CHECKS, ...MEMORY_CHECKS];

/**
 * Tables whose rows others reference, with the key the filler values of `validRow` point at
 * (`thread_id`, `run_id`, `request_artifact_id` are all "x"): insert these first.
 */
export const PARENT_TABLES = [
  "state_threads",
  "state_runs",
  "state_artifacts",
  "state_memory_records",
];

/**
 * A row of `table` that satisfies its CHECKs, with `overrides` applied: every NOT NULL column
 * without a default gets a filler ("x", or 1 for numbers), then the table's CHECK-valid values.
 */
export function validRow(
  table: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const filler: Record<string, unknown> = {};
  for (const spec of KERNEL_TABLES[table] ?? []) {
    const [name = "", type = ""] = spec.split(" ");
    if (!spec.includes("NOT NULL") || spec.includes("DEFAULT") || type === "SERIAL") continue;
    filler[name] = type === "TEXT" ? "x" : 1;
  }
  return { ...filler, ...VALID_ROWS[table], ...overrides };
}

/** A catalog default as the value a row reads back (`'[]'` → "[]", `0` → 0). */
export function defaultValueOf(text: string): unknown {
  return text.startsWith("'") ? text.slice(1, -1).replace(/''/g, "'") : Number(text);
}
