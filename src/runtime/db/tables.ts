import type { Kysely, Transaction } from "kysely";
import type { KernelDatabase, Store } from "../../store/index.js";

/**
 * Row types of the runtime's tables (`003_runtime.sql`), as Kysely sees them: snake_case
 * columns, `_at` integer milliseconds, `_json` text, kebab-case enum values.
 */
export type RuntimeTables = {
  state_audit_events: AuditEventsTable;
  state_audit_heads: AuditHeadsTable;
  state_artifacts: ArtifactsTable;
  state_tool_calls: ToolCallsTable;
  state_approvals: ApprovalsTable;
  state_events: EventsTable;
  state_dedupe_keys: DedupeKeysTable;
  state_steps: StepsTable;
  state_run_grants: RunGrantsTable;
};

/** The kernel database with the runtime's tables. */
export type RuntimeDatabase = KernelDatabase & RuntimeTables;

/** A query builder over the runtime's tables, or a transaction on them. */
export type RuntimeDb = Kysely<RuntimeDatabase> | Transaction<RuntimeDatabase>;

export type DbRiskLevel = "low" | "medium" | "high" | "critical";
export type DbAutonomyLevel = "a0" | "a1" | "a2" | "a3" | "a4";

export interface AuditEventsTable {
  id: string;
  seq: number;
  trace_id: string;
  stage: string;
  type: string;
  summary: string;
  outcome: string;
  event_id: string | null;
  task_id: string | null;
  step_id: string | null;
  tool_call_id: string | null;
  approval_id: string | null;
  latency_ms: number | null;
  tool_name: string | null;
  connector_id: string | null;
  risk_level: DbRiskLevel | null;
  autonomy_level: DbAutonomyLevel | null;
  payload_ref: string | null;
  recorded_at: number;
  prev_hash: string;
  event_hash: string;
  /** The sha256 of the payload artifact, chained with the event (`013_audit_payload_chain.sql`). */
  payload_hash: string | null;
}

export interface AuditHeadsTable {
  id: string;
  last_seq: number;
  last_hash: string;
  updated_at: number;
}

export type ArtifactKind = "tool-request" | "tool-result" | "tool-error" | "audit-payload";

export interface ArtifactsTable {
  id: string;
  kind: ArtifactKind;
  content_hash: string;
  body_json: string;
  byte_count: number;
  created_at: number;
}

export interface ToolCallsTable {
  id: string;
  trace_id: string;
  task_id: string | null;
  step_id: string | null;
  event_id: string | null;
  connector_id: string;
  tool_name: string;
  tool_version: string;
  action: string;
  request_hash: string;
  /** The redacted request in an artifact: calls recorded before `020_ledger_write_path.sql`. */
  request_artifact_id: string | null;
  idempotency_key: string;
  status: "attempted" | "succeeded" | "failed" | "unknown";
  latency_ms: number | null;
  risk_level: DbRiskLevel;
  autonomy_level: DbAutonomyLevel;
  result_status: "succeeded" | "failed" | null;
  response_hash: string | null;
  result_artifact_id: string | null;
  error_json: string | null;
  created_at: number;
  updated_at: number;
  resolved_at: number | null;
  /** The tool's cost estimate when called, a decimal string (`015_tool_call_cost.sql`). */
  cost_estimate: string | null;
  /**
   * The execution that wrote `attempted` (`host:pid:random`, one per ledger) and until when its
   * lease on the call lasts (`017_tool_call_leases.sql`); null on rows written before leases.
   */
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** The redacted request's canonical JSON (what `request_hash` hashes); null on older rows. */
  request_json: string | null;
  /**
   * `idempotency_key` while the call is not `failed`, then null: the unique index on
   * (tool_name, live_key) allows one live call per key without being rewritten on every status
   * change (`020_ledger_write_path.sql`).
   */
  live_key: string | null;
  /**
   * The fencing token of the call's current claim: the audit sequence number of the event that
   * recorded it (`028_tool_call_fence.sql`); null on older rows.
   */
  fence: number | null;
}

export interface ApprovalsTable {
  id: string;
  trace_id: string;
  event_id: string | null;
  task_id: string | null;
  step_id: string | null;
  status: "pending" | "approved" | "denied" | "expired";
  risk_level: DbRiskLevel;
  autonomy_level: DbAutonomyLevel;
  what_json: string;
  why: string;
  how_to_approve: string;
  required_capability: string | null;
  decided_by: string | null;
  decided_at: number | null;
  decision_reason: string | null;
  decision_capability: string | null;
  created_at: number;
  expires_at: number;
  /** The gated call's idempotency key (`005_runtime_steps.sql`); null for approvals made by hand. */
  gate_key?: string | null;
  /** The gated call's request hash (`009_runtime_approval_requests.sql`): what was approved. */
  request_hash?: string | null;
  /** The answer the decider gave an IR interrupt (`021_trust.sql`), JSON text; null otherwise. */
  answer_json?: string | null;
}

export interface StepsTable {
  id: string;
  run_id: string;
  trace_id: string;
  task_key: string;
  name: string;
  visit: number;
  status: "pending" | "running" | "succeeded" | "failed" | "paused";
  attempt: number;
  max_attempts: number;
  retry_policy_json: string;
  input_json: string;
  checkpoint_json: string;
  output_json: string | null;
  idempotency_key: string | null;
  error_json: string | null;
  next_wake_at: number | null;
  started_at: number | null;
  ended_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface RunGrantsTable {
  /** The run's id. */
  id: string;
  trace_id: string;
  event_id: string | null;
  autonomy_level: DbAutonomyLevel;
  risk_level: DbRiskLevel;
  tool_profile: "default" | "cleared";
  capabilities_json: string;
  routing_json: string | null;
  handler: string | null;
  input_json: string;
  created_at: number;
  /** Routing rules' gate demands (`008_runtime_gate_demands.sql`). */
  gate_demands_json: string;
  /** Routing's approval lifetime (`012_runtime_grant_approval_ttl.sql`); null: the default. */
  approval_ttl_seconds: number | null;
  /** The application module that can continue the run (`016_runtime_grant_app.sql`). */
  app_module: string | null;
}

export interface EventsTable {
  id: string;
  trace_id: string;
  channel: string;
  connector_id: string;
  dedupe_key: string | null;
  event_json: string;
  occurred_at: number;
  ingested_at: number;
}

export interface DedupeKeysTable {
  id: string;
  event_id: string;
  trace_id: string;
  claimed_at: number;
  expires_at: number;
}

/** The store's query builder, widened to the runtime's tables. */
export function runtimeDb(store: Store): Kysely<RuntimeDatabase> {
  return store.kysely.withTables<RuntimeTables>();
}
