import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { ToolProfile } from "../tools/profiles.js";

/** One tool call as a node asks for it. */
export interface ToolCallRequest {
  /** `namespace.name` of a registered tool. */
  tool: string;
  input: unknown;
  /** Required: stable across retries of the same step, handed to the tool. */
  idempotencyKey: string;
  traceId: string;
  /** What the call does, for the record; the tool's name by default. */
  action?: string;
  /** Which integration instance; the tool's namespace by default. */
  connectorId?: string;
  taskId?: string | null;
  stepId?: string | null;
  eventId?: string | null;
  riskLevel: RiskLevel;
  autonomyLevel: AutonomyLevel;
  /** Capabilities the caller holds; every one of the tool's `permissions` must be among them. */
  capabilities?: readonly string[];
  /** `default` or `cleared` (refuses `write` and `external` tools). */
  profile?: ToolProfile;
}
