import type { AuditEvent } from "../contracts/audit-event.js";

const json = JSON.stringify;

/** A string the event check matched against a pattern without quotes, backslashes or controls. */
const plain = (value: string): string => `"${value}"`;
const plainOrNull = (value: string | null): string => (value === null ? "null" : `"${value}"`);

/**
 * `canonicalJson(event)` for an AuditEvent, written out: the keys in their sorted order, every
 * field present (the contract fills nulls), so no key is sorted or skipped per event. The chain
 * hash covers this text, so it must stay byte-identical to `canonicalJson` (a test checks it over
 * random events); a new AuditEvent field must be added here in its sorted place.
 *
 * `e` is an event `checkAuditEvent` admitted: its ids, timestamp, enum values and type matched
 * patterns that have nothing JSON escapes, so they are quoted as they are (JSON.stringify runs
 * only on the free texts: summary, tool name, connector, payload ref).
 */
export function canonicalAuditJson(e: AuditEvent): string {
  const r = e.refs;
  return (
    `{"audit_id":${plain(e.audit_id)},"autonomy_level":${plainOrNull(e.autonomy_level)}` +
    `,"connector_id":${json(e.connector_id)},"latency_ms":${e.latency_ms === null ? "null" : String(e.latency_ms)}` +
    `,"outcome":${plain(e.outcome)},"payload_ref":${json(e.payload_ref)}` +
    `,"refs":{"approval_id":${plainOrNull(r.approval_id)},"event_id":${plainOrNull(r.event_id)}` +
    `,"step_id":${plainOrNull(r.step_id)},"task_id":${plainOrNull(r.task_id)},"tool_call_id":${plainOrNull(r.tool_call_id)}}` +
    `,"risk_level":${plainOrNull(e.risk_level)},"stage":${plain(e.stage)},"summary":${json(e.summary)}` +
    `,"timestamp":${plain(e.timestamp)},"tool_name":${json(e.tool_name)}` +
    `,"trace_id":${plain(e.trace_id)},"type":${plain(e.type)}}`
  );
}
