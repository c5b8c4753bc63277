import { jsonString, keyJson } from "../../checkpoint/base/index.js";
import type { AuditEvent } from "../contracts/audit-event.js";

/** A free text (or null) as JSON: `jsonString`'s text, `null` for null. */
export function jsonText(text: string | null): string {
  return text === null ? "null" : jsonString(text);
}

/** `jsonText` of a name that recurs (a tool name, a connector): quoted once per name. */
function jsonName(text: string | null): string {
  return text === null ? "null" : keyJson(text);
}

/**
 * `canonicalJson(event)` for an AuditEvent, written out: the keys in their sorted order, every
 * field present (the contract fills nulls), so no key is sorted or skipped per event. The chain
 * hash covers this text, so it must stay byte-identical to `canonicalJson` (a test checks it over
 * random events); a new AuditEvent field must be added here in its sorted place.
 *
 * `e` is an event `checkAuditEvent` admitted: its ids, timestamp, enum values and type matched
 * patterns that have nothing JSON escapes, so they are quoted as they are (JSON.stringify runs
 * only on the free texts: summary, tool name, connector, payload ref; the two names' quoted texts
 * come from `keyJson`'s cache).
 */
export function canonicalAuditJson(e: AuditEvent): string {
  const r = e.refs;
  // One template with the admitted values' quotes in it, no quoting helper per field: a fifth
  // less allocated (two events a ledgered call; still its largest allocation, ~1.6 KB each).
  return `{"audit_id":"${e.audit_id}","autonomy_level":${e.autonomy_level === null ? "null" : `"${e.autonomy_level}"`},"connector_id":${jsonName(e.connector_id)},"latency_ms":${e.latency_ms === null ? "null" : String(e.latency_ms)},"outcome":"${e.outcome}","payload_ref":${jsonText(e.payload_ref)},"refs":{"approval_id":${r.approval_id === null ? "null" : `"${r.approval_id}"`},"event_id":${r.event_id === null ? "null" : `"${r.event_id}"`},"step_id":${r.step_id === null ? "null" : `"${r.step_id}"`},"task_id":${r.task_id === null ? "null" : `"${r.task_id}"`},"tool_call_id":${r.tool_call_id === null ? "null" : `"${r.tool_call_id}"`}},"risk_level":${e.risk_level === null ? "null" : `"${e.risk_level}"`},"stage":"${e.stage}","summary":${jsonText(e.summary)},"timestamp":"${e.timestamp}","tool_name":${jsonName(e.tool_name)},"trace_id":"${e.trace_id}","type":"${e.type}"}`;
}
