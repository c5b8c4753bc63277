import { z } from "zod";
import type { AuditEvent, AuditEventInput } from "../contracts/audit-event.js";
import { AuditOutcome, AutonomyLevel, PipelineStage, RiskLevel } from "../contracts/enums.js";

// The same patterns and enums the zod contract uses, so that this check never admits what zod
// refuses.
const TIMESTAMP = z.regexes.datetime({ offset: true });
const DOTTED = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const STAGES = new Set<string>(PipelineStage.options);
const OUTCOMES = new Set<string>(AuditOutcome.options);
const RISKS = new Set<string>(RiskLevel.options);
const AUTONOMY = new Set<string>(AutonomyLevel.options);
const REF_KEYS = new Set(["event_id", "task_id", "step_id", "tool_call_id", "approval_id"]);

/**
 * The audit writer's fast path: the AuditEvent contract checked by hand (a few regexes and set
 * lookups, no allocation of issues), returning the filled event, or null when anything is off —
 * the caller then runs the zod contract to report every problem. It only ever admits events the
 * contract admits (a test compares both on valid and invalid events).
 */
export function checkAuditEvent(
  candidate: AuditEventInput,
  /** The caller built `candidate` with the contract's keys and no others (the writer does). */
  keysKnown = false,
): AuditEvent | null {
  const c = candidate as Record<string, unknown>;
  const refs = c.refs;
  if (refs === null || typeof refs !== "object" || Array.isArray(refs)) return null;
  // for…in allocates no key list; an inherited key only sends the event to zod's check.
  for (const key in refs) if (!REF_KEYS.has(key)) return null;
  const r = refs as Record<string, unknown>;
  const event: AuditEvent = {
    audit_id: c.audit_id as string,
    timestamp: c.timestamp as string,
    trace_id: c.trace_id as string,
    stage: c.stage as AuditEvent["stage"],
    refs: {
      event_id: (r.event_id ?? null) as string | null,
      task_id: (r.task_id ?? null) as string | null,
      step_id: (r.step_id ?? null) as string | null,
      tool_call_id: (r.tool_call_id ?? null) as string | null,
      approval_id: (r.approval_id ?? null) as string | null,
    },
    type: c.type as string,
    summary: c.summary as string,
    outcome: c.outcome as AuditEvent["outcome"],
    latency_ms: (c.latency_ms ?? null) as number | null,
    tool_name: (c.tool_name ?? null) as string | null,
    connector_id: (c.connector_id ?? null) as string | null,
    risk_level: (c.risk_level ?? null) as AuditEvent["risk_level"],
    autonomy_level: (c.autonomy_level ?? null) as AuditEvent["autonomy_level"],
    payload_ref: (c.payload_ref ?? null) as string | null,
  };
  // A `key in event` per key is a megamorphic lookup: skipped when the keys are known.
  if (!keysKnown) for (const key in c) if (!(key in event)) return null;
  const ok =
    isUuid(event.audit_id) &&
    isTimestamp(event.timestamp) &&
    isUuid(event.trace_id) &&
    STAGES.has(event.stage) &&
    isUuidOrNull(event.refs.event_id) &&
    isUuidOrNull(event.refs.task_id) &&
    isUuidOrNull(event.refs.step_id) &&
    isUuidOrNull(event.refs.tool_call_id) &&
    isUuidOrNull(event.refs.approval_id) &&
    isDotted(event.type) &&
    typeof event.summary === "string" &&
    event.summary.length > 0 &&
    OUTCOMES.has(event.outcome) &&
    (event.latency_ms === null ||
      (Number.isSafeInteger(event.latency_ms) && event.latency_ms >= 0)) &&
    isStringOrNull(event.tool_name) &&
    isStringOrNull(event.connector_id) &&
    (event.risk_level === null || RISKS.has(event.risk_level)) &&
    (event.autonomy_level === null || AUTONOMY.has(event.autonomy_level)) &&
    isStringOrNull(event.payload_ref);
  return ok ? event : null;
}

/** zod's UUID pattern (`z.regexes.uuid()`) without its alternation, the nil and max ids apart. */
const UUID =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const MAX_UUID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/**
 * Whether `value` matches zod's UUID pattern. The pattern's three alternatives under one `^…$`
 * cost ~4x the plain id pattern alone (it runs six times per ledgered call); a test compares both.
 */
export function isUuid(value: unknown): boolean {
  // A run's events repeat its trace id, a call's events its call id: the last two that matched.
  if (value === lastUuid || value === priorUuid) return true;
  if (typeof value !== "string") return false;
  if (!UUID.test(value) && value !== NIL_UUID && value !== MAX_UUID) return false;
  priorUuid = lastUuid;
  lastUuid = value;
  return true;
}

let lastUuid: string = NIL_UUID;
let priorUuid: string = NIL_UUID;

/** The last timestamp that matched: events recorded in the same millisecond skip the regex. */
let lastTimestamp = "1970-01-01T00:00:00.000Z";

function isTimestamp(value: unknown): boolean {
  if (value === lastTimestamp) return true;
  if (typeof value !== "string" || !TIMESTAMP.test(value)) return false;
  lastTimestamp = value;
  return true;
}

// The last two types that matched: a ledgered call's two events alternate between two types.
let lastType = "";
let priorType = "";

function isDotted(value: unknown): boolean {
  if (value === lastType || value === priorType) return value !== "";
  if (typeof value !== "string" || !DOTTED.test(value)) return false;
  priorType = lastType;
  lastType = value;
  return true;
}

function isUuidOrNull(value: unknown): boolean {
  return value === null || isUuid(value);
}

function isStringOrNull(value: unknown): boolean {
  return value === null || typeof value === "string";
}
