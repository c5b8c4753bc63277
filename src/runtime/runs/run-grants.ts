import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { RoutingDecision } from "../contracts/routing-decision.js";
import { autonomyFromDb, autonomyToDb } from "../db/codec.js";
import type { RunGrantsTable, RuntimeDb } from "../db/tables.js";
import type { GateTightening } from "../policy/gate-policy.js";
import type { ToolProfile } from "../tools/profiles.js";

/**
 * What a governed run was granted when it started. The autonomy level is a snapshot: it never
 * changes while the run lives, whatever happens to the configuration meanwhile.
 */
export interface RunGrant {
  runId: string;
  traceId: string;
  eventId: string | null;
  autonomy: AutonomyLevel;
  /**
   * The run's risk: the routing's, or higher if the starter said so. Every gated call is judged
   * at this risk or above; a node cannot ask for less.
   */
  risk: RiskLevel;
  /** What routing's rules demanded of the gate; applied to every gated call of the run. */
  gateDemands: GateTightening[];
  /** How long the run's approvals last (routing's `approval_ttl_seconds`); null: the default. */
  approvalTtlSeconds: number | null;
  /** The application module (`keelApp`) operators' tools continue and replay the run with. */
  app: string | null;
  profile: ToolProfile;
  capabilities: string[];
  routing: RoutingDecision | null;
  handler: string | null;
  /** The graph input the run started with (replays start from it). */
  input: unknown;
  createdAt: number;
}

export async function saveGrant(db: RuntimeDb, grant: RunGrant): Promise<void> {
  const row: RunGrantsTable = {
    id: grant.runId,
    trace_id: grant.traceId,
    event_id: grant.eventId,
    autonomy_level: autonomyToDb(grant.autonomy),
    risk_level: grant.risk,
    tool_profile: grant.profile,
    capabilities_json: JSON.stringify(grant.capabilities),
    routing_json: grant.routing === null ? null : JSON.stringify(grant.routing),
    handler: grant.handler,
    input_json: JSON.stringify(grant.input ?? null),
    created_at: grant.createdAt,
    gate_demands_json: JSON.stringify(grant.gateDemands),
    approval_ttl_seconds: grant.approvalTtlSeconds,
    app_module: grant.app,
  };
  await db.insertInto("state_run_grants").values(row).execute();
}

export async function loadGrant(db: RuntimeDb, runId: string): Promise<RunGrant | undefined> {
  const row = await db
    .selectFrom("state_run_grants")
    .selectAll()
    .where("id", "=", runId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    runId: row.id,
    traceId: row.trace_id,
    eventId: row.event_id,
    autonomy: autonomyFromDb(row.autonomy_level),
    risk: row.risk_level,
    gateDemands: JSON.parse(row.gate_demands_json) as GateTightening[],
    approvalTtlSeconds: row.approval_ttl_seconds === null ? null : Number(row.approval_ttl_seconds),
    app: row.app_module,
    profile: row.tool_profile,
    capabilities: JSON.parse(row.capabilities_json) as string[],
    routing: row.routing_json === null ? null : (JSON.parse(row.routing_json) as RoutingDecision),
    handler: row.handler,
    input: JSON.parse(row.input_json) as unknown,
    createdAt: Number(row.created_at),
  };
}
