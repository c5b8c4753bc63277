import type { AuditEvent } from "../contracts/audit-event.js";
import { autonomyToDb, stageToDb } from "../db/codec.js";
import { canonicalAuditJson } from "./audit-canonical.js";
import { chainedText } from "./audit-chain.js";

/**
 * A validated audit event ready to be appended: the event, when it was recorded, the sha256 of
 * its payload artifact (if any), and the text the chain hash covers — its canonical JSON, with the
 * payload hash after it (computed once; the link to the previous event is added under the write
 * lock).
 */
export interface AuditRecord {
  readonly event: AuditEvent;
  readonly recordedAt: number;
  readonly payloadHash: string | null;
  readonly canonical: string;
}

export function auditRecord(
  event: AuditEvent,
  recordedAt: number,
  payloadHash: string | null = null,
): AuditRecord {
  return {
    event,
    recordedAt,
    payloadHash,
    canonical: chainedText(canonicalAuditJson(event), payloadHash),
  };
}

/**
 * The columns of `state_audit_events` an append writes from the record, in the order of
 * `auditRowValues`; `seq`, `prev_hash` and `event_hash` come from the chain head.
 */
export const AUDIT_RECORD_COLUMNS = [
  "id",
  "trace_id",
  "stage",
  "type",
  "summary",
  "outcome",
  "event_id",
  "task_id",
  "step_id",
  "tool_call_id",
  "approval_id",
  "latency_ms",
  "tool_name",
  "connector_id",
  "risk_level",
  "autonomy_level",
  "payload_ref",
  "recorded_at",
  "payload_hash",
] as const;

/** The record's column values (database enum spellings), in `AUDIT_RECORD_COLUMNS` order. */
export function auditRowValues(record: AuditRecord): (string | number | null)[] {
  const e = record.event;
  return [
    e.audit_id,
    e.trace_id,
    stageToDb(e.stage),
    e.type,
    e.summary,
    e.outcome,
    e.refs.event_id,
    e.refs.task_id,
    e.refs.step_id,
    e.refs.tool_call_id,
    e.refs.approval_id,
    e.latency_ms,
    e.tool_name,
    e.connector_id,
    e.risk_level,
    e.autonomy_level === null ? null : autonomyToDb(e.autonomy_level),
    e.payload_ref,
    record.recordedAt,
    record.payloadHash,
  ];
}
