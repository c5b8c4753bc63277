/**
 * The closed set of error codes Keel raises. Each code maps to a CLI exit code (DESIGN.md,
 * "Errors and exit codes") and an HTTP status, so interfaces never guess.
 *
 * Later modules add their codes here, in one place, so the set stays closed and reviewable.
 */
export const ERROR_CODES = {
  // core
  INTERNAL: { exit: 2, http: 500 },
  INVALID_ARGUMENT: { exit: 2, http: 400 },
  VALIDATION_FAILED: { exit: 1, http: 422 },
  NOT_FOUND: { exit: 5, http: 404 },
  DUPLICATE: { exit: 3, http: 409 },
  NONCE_MISMATCH: { exit: 4, http: 409 },
  ABORTED: { exit: 2, http: 499 },
  // graph engine (names follow LangGraph.js where it has one)
  INVALID_GRAPH: { exit: 2, http: 400 },
  INVALID_CONCURRENT_GRAPH_UPDATE: { exit: 2, http: 500 },
  INVALID_UPDATE: { exit: 2, http: 500 },
  GRAPH_RECURSION_LIMIT: { exit: 2, http: 500 },
  NODE_FAILED: { exit: 2, http: 500 },
  NODE_TIMEOUT: { exit: 2, http: 504 },
  REDUCER_FAILED: { exit: 2, http: 500 },
  UNKNOWN_GOTO_TARGET: { exit: 2, http: 500 },
  EMPTY_INPUT: { exit: 2, http: 400 },
  CHECKPOINTER_REQUIRED: { exit: 2, http: 400 },
  CHECKPOINT_NOT_FOUND: { exit: 5, http: 404 },
  CHECKPOINT_FORMAT: { exit: 2, http: 500 },
  CHECKPOINT_NOT_SERIALIZABLE: { exit: 2, http: 500 },
  GRAPH_INTERRUPT: { exit: 2, http: 500 },
  GRAPH_DRAINED: { exit: 2, http: 503 },
  INTERRUPT_OUTSIDE_NODE: { exit: 2, http: 500 },
  NODE_NOT_FOUND: { exit: 5, http: 404 },
  EMPTY_CHANNEL: { exit: 2, http: 500 },
  // durable savers and runs (src/checkpoint/{sqlite,postgres,runs})
  CHECKPOINT_CORRUPT: { exit: 2, http: 500 },
  THREAD_NOT_FOUND: { exit: 5, http: 404 },
  THREAD_LEASED: { exit: 2, http: 409 },
  RUN_NOT_FOUND: { exit: 5, http: 404 },
  RUN_INVALID_TRANSITION: { exit: 2, http: 409 },
  SAVER_QUEUE_FAILED: { exit: 2, http: 500 },
  // store
  STORE_OPEN_FAILED: { exit: 2, http: 503 },
  STORE_CORRUPT: { exit: 2, http: 500 },
  STORE_TOO_NEW: { exit: 2, http: 500 },
  STORE_READ_ONLY: { exit: 2, http: 500 },
  MIGRATION_FAILED: { exit: 2, http: 500 },
  PLUGIN_FORBIDDEN_SQL: { exit: 2, http: 400 },
  PLUGIN_STORAGE: { exit: 2, http: 400 },
  STORE_NOT_A_DATABASE: { exit: 2, http: 500 },
  STORE_BUSY: { exit: 2, http: 503 },
  /** The database server stopped answering within the configured timeouts, or dropped the connection. */
  STORE_UNAVAILABLE: { exit: 2, http: 503 },
  /** The disk (or the database's size limit) is full: nothing more can be written. */
  STORE_FULL: { exit: 2, http: 507 },
  /** The operating system failed a read or write of the database file. */
  STORE_IO_FAILED: { exit: 2, http: 500 },
  STORE_BACKUP_FAILED: { exit: 2, http: 500 },
  STORE_UNSUPPORTED: { exit: 2, http: 501 },
  /** A restore or reset refused while runs hold live thread leases. */
  STORE_IN_USE: { exit: 2, http: 409 },
  MIGRATION_PENDING: { exit: 2, http: 503 },
  CONFIG_INVALID: { exit: 2, http: 400 },
  CONFIRMATION_REQUIRED: { exit: 2, http: 400 },
  PLUGIN_MANIFEST_INVALID: { exit: 2, http: 400 },
  SCOPED_DB_VIOLATION: { exit: 2, http: 403 },
  KV_KEY_INVALID: { exit: 2, http: 400 },
  KV_VALUE_NOT_SERIALIZABLE: { exit: 2, http: 400 },
  KV_VALUE_TOO_LARGE: { exit: 2, http: 413 },
  KV_OPERATION_FAILED: { exit: 2, http: 500 },
  // rules
  RULES_PARSE: { exit: 2, http: 400 },
  RULES_RUNTIME: { exit: 2, http: 500 },
  /** A bound of rule evaluation reached (firings, loop iterations, facts, wall time). */
  RULES_LIMIT: { exit: 2, http: 500 },
  // ir
  IR_INVALID: { exit: 1, http: 422 },
  IR_VERSION_INVALID: { exit: 2, http: 400 },
  IR_WHEN_INVALID: { exit: 2, http: 400 },
  IR_INVALID_ID: { exit: 2, http: 400 },
  PACK_INCOMPATIBLE: { exit: 2, http: 409 },
  IR_STATE_TYPE: { exit: 2, http: 422 },
  IR_PARALLEL_FAILED: { exit: 2, http: 500 },
  IR_GRAPH_CHANGED: { exit: 2, http: 409 },
  IR_NODE_KINDS_INVALID: { exit: 2, http: 400 },
  // ir runs by id (`keel runs resume|respond`)
  RUN_AWAITING_RESPONSE: { exit: 2, http: 409 },
  RUN_NOT_AWAITING_RESPONSE: { exit: 2, http: 409 },
  // runtime (src/runtime): contracts, transitions, gates, tools, ledger, approvals, audit
  ILLEGAL_TRANSITION: { exit: 2, http: 409 },
  GATE_POLICY_INVALID: { exit: 2, http: 400 },
  GATE_BLOCKED: { exit: 2, http: 403 },
  INGEST_INVALID: { exit: 1, http: 422 },
  TOOL_NOT_FOUND: { exit: 5, http: 404 },
  TOOL_SPEC_INVALID: { exit: 2, http: 400 },
  TOOL_INPUT_INVALID: { exit: 1, http: 422 },
  TOOL_OUTPUT_INVALID: { exit: 2, http: 502 },
  TOOL_FORBIDDEN: { exit: 2, http: 403 },
  TOOL_CALL_FAILED: { exit: 2, http: 502 },
  TOOL_CALL_UNKNOWN: { exit: 2, http: 409 },
  TOOL_CALL_LATE: { exit: 2, http: 409 },
  TOOL_CALL_NOT_FOUND: { exit: 5, http: 404 },
  IDEMPOTENCY_CONFLICT: { exit: 3, http: 409 },
  APPROVAL_NOT_FOUND: { exit: 5, http: 404 },
  APPROVAL_ALREADY_DECIDED: { exit: 3, http: 409 },
  APPROVAL_EXPIRED: { exit: 2, http: 410 },
  CAPABILITY_MISSING: { exit: 2, http: 403 },
  AUDIT_INVALID: { exit: 2, http: 400 },
  AUDIT_WRITE_FAILED: { exit: 2, http: 500 },
  AUDIT_TAMPERED: { exit: 1, http: 500 },
  ROUTING_INVALID: { exit: 2, http: 400 },
  APPROVAL_PENDING: { exit: 2, http: 409 },
  APPROVAL_DENIED: { exit: 2, http: 403 },
  APPROVAL_MISMATCH: { exit: 2, http: 409 },
  STEP_NOT_FOUND: { exit: 5, http: 404 },
  REPLAY_MISSING_CALL: { exit: 2, http: 409 },
  REPLAY_DIVERGED: { exit: 1, http: 409 },
  REPLAY_FAIL_LOUD: { exit: 2, http: 409 },
  APP_MODULE_INVALID: { exit: 2, http: 500 },
  // decision memory (src/memory, src/mcp)
  MEMORY_INVALID: { exit: 1, http: 422 },
  MEMORY_CONFLICT: { exit: 3, http: 409 },
  MEMORY_NOT_FOUND: { exit: 5, http: 404 },
  MEMORY_INVARIANT: { exit: 2, http: 409 },
  MEMORY_TRUST: { exit: 2, http: 403 },
  MEMORY_GIT_FAILED: { exit: 2, http: 502 },
  MEMORY_EMBEDDER_FAILED: { exit: 2, http: 502 },
  MEMORY_UNAVAILABLE: { exit: 2, http: 500 },
  // catalog (src/catalog): scans, browse verbs, extensions
  CATALOG_EXTENSION_INVALID: { exit: 2, http: 400 },
  CATALOG_ROOT_INVALID: { exit: 2, http: 400 },
  CATALOG_CONFIG_INVALID: { exit: 2, http: 400 },
  CATALOG_SCAN_FAILED: { exit: 2, http: 500 },
  CATALOG_DUMP_INVALID: { exit: 2, http: 400 },
  CATALOG_FORMAT_UNKNOWN: { exit: 2, http: 400 },
  CATALOG_QUERY_INVALID: { exit: 2, http: 400 },
  CATALOG_NOT_SCANNED: { exit: 2, http: 409 },
  CATALOG_ORPHAN_NOT_FOUND: { exit: 5, http: 404 },
  PLUGIN_NOT_FOUND: { exit: 5, http: 404 },
  // jobs (src/jobs): the dispatch lifecycle, actions, runners
  JOB_NOT_FOUND: { exit: 5, http: 404 },
  JOB_DUPLICATE: { exit: 3, http: 409 },
  JOB_NONCE_MISMATCH: { exit: 4, http: 403 },
  JOB_NOT_RUNNING: { exit: 2, http: 409 },
  JOB_ALREADY_TERMINAL: { exit: 2, http: 409 },
  JOB_INVALID_TRANSITION: { exit: 2, http: 409 },
  JOB_QUEUE_EMPTY: { exit: 1, http: 404 },
  JOB_REPORT_INVALID: { exit: 2, http: 422 },
  JOB_FILE_MISSING: { exit: 2, http: 410 },
  ACTION_NOT_FOUND: { exit: 5, http: 404 },
  ACTION_MANIFEST_INVALID: { exit: 2, http: 400 },
  CATALOG_NODE_NOT_FOUND: { exit: 5, http: 404 },
  STREAM_MODE_UNKNOWN: { exit: 2, http: 400 },
  STORE_INVALID: { exit: 2, http: 400 },
  // agents (src/agents, LangChain interop)
  OPTIONAL_DEPENDENCY_MISSING: { exit: 2, http: 500 },
  MODEL_ENDPOINT_FAILED: { exit: 2, http: 502 },
  // server (src/server, `keel serve`, `keel tokens`)
  UNAUTHENTICATED: { exit: 2, http: 401 },
  CSRF_REJECTED: { exit: 2, http: 403 },
  PAYLOAD_TOO_LARGE: { exit: 2, http: 413 },
  REQUEST_TIMEOUT: { exit: 2, http: 408 },
  TOKEN_NOT_FOUND: { exit: 5, http: 404 },
  ASSISTANT_NOT_FOUND: { exit: 5, http: 404 },
  THREAD_BUSY: { exit: 2, http: 409 },
  SERVER_BIND_REFUSED: { exit: 2, http: 400 },
} as const satisfies Record<string, { exit: number; http: number }>;

/** A stable, machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The CLI exit code for an error code (0 ok, 1 issues, 2 operational, 3 duplicate, 4 nonce, 5 not found). */
export function exitCodeFor(code: ErrorCode): number {
  return ERROR_CODES[code].exit;
}

/** The HTTP status for an error code. */
export function httpStatusFor(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}
