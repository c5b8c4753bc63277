import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { RoutingDecision } from "../contracts/routing-decision.js";
import { autonomyFromDb, autonomyToDb } from "../db/codec.js";
import type { RunGrantsTable, RuntimeDb } from "../db/tables.js";
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
  /** The risk its routing gave (the gate's default risk for the run's effectful calls). */
  risk: RiskLevel;
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
    profile: row.tool_profile,
    capabilities: JSON.parse(row.capabilities_json) as string[],
    routing: row.routing_json === null ? null : (JSON.parse(row.routing_json) as RoutingDecision),
    handler: row.handler,
    input: JSON.parse(row.input_json) as unknown,
    createdAt: Number(row.created_at),
  };
}
