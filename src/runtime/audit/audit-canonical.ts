import type { AuditEvent } from "../contracts/audit-event.js";

const json = JSON.stringify;

/**
 * `canonicalJson(event)` for an AuditEvent, written out: the keys in their sorted order, every
 * field present (the contract fills nulls), so no key is sorted or skipped per event. The chain
 * hash covers this text, so it must stay byte-identical to `canonicalJson` (a test checks it over
 * random events); a new AuditEvent field must be added here in its sorted place.
 */
export function canonicalAuditJson(e: AuditEvent): string {
  const r = e.refs;
  return (
    `{"audit_id":${json(e.audit_id)},"autonomy_level":${json(e.autonomy_level)}` +
    `,"connector_id":${json(e.connector_id)},"latency_ms":${json(e.latency_ms)}` +
    `,"outcome":${json(e.outcome)},"payload_ref":${json(e.payload_ref)}` +
    `,"refs":{"approval_id":${json(r.approval_id)},"event_id":${json(r.event_id)}` +
    `,"step_id":${json(r.step_id)},"task_id":${json(r.task_id)},"tool_call_id":${json(r.tool_call_id)}}` +
    `,"risk_level":${json(e.risk_level)},"stage":${json(e.stage)},"summary":${json(e.summary)}` +
    `,"timestamp":${json(e.timestamp)},"tool_name":${json(e.tool_name)}` +
    `,"trace_id":${json(e.trace_id)},"type":${json(e.type)}}`
  );
}
