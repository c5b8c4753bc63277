import { canonicalJson, sha256Hex } from "../../core/index.js";
import type { AuditEvent } from "../contracts/audit-event.js";
import { autonomyFromDb, isoFromMs, stageFromDb } from "../db/codec.js";
import type { AuditEventsTable } from "../db/tables.js";

/** The `prev_hash` of the first event of the log. */
export const GENESIS_HASH = "0".repeat(64);

/** The id of the single row of `state_audit_heads` that tracks the log's head. */
export const AUDIT_HEAD_ID = "audit";

/**
 * The hash that links an event into the chain: sha256 over the previous event's hash, the
 * canonical JSON of the seed-003 AuditEvent and the sha256 of its payload, if it has one. Any
 * change to a recorded field, to the payload, to the order, or to the link changes it.
 */
export function chainHash(
  prevHash: string,
  event: AuditEvent,
  payloadHash: string | null = null,
): string {
  return chainHashOf(prevHash, chainedText(canonicalJson(event), payloadHash));
}

/**
 * What the chain hash covers for one event: its canonical JSON, then its payload's sha256 on a
 * line of its own (events without a payload, and those written before payloads were chained,
 * hash their JSON alone).
 */
export function chainedText(canonical: string, payloadHash: string | null): string {
  return payloadHash === null ? canonical : `${canonical}\n${payloadHash}`;
}

/** `chainHash` over an event's canonical JSON already computed. Postgres computes the same in
 * SQL (`sha256` over `prev_hash || chr(10) || canonical`) under its head lock. */
export function chainHashOf(prevHash: string, canonical: string): string {
  return sha256Hex(`${prevHash}\n${canonical}`);
}

/** A stored row back as the seed-003 AuditEvent (wire enum values, ISO timestamp). */
export function auditEventFromRow(row: AuditEventsTable): AuditEvent {
  return {
    audit_id: row.id,
    timestamp: isoFromMs(Number(row.recorded_at)),
    trace_id: row.trace_id,
    stage: stageFromDb(row.stage),
    refs: {
      event_id: row.event_id,
      task_id: row.task_id,
      step_id: row.step_id,
      tool_call_id: row.tool_call_id,
      approval_id: row.approval_id,
    },
    type: row.type,
    summary: row.summary,
    outcome: row.outcome as AuditEvent["outcome"],
    latency_ms: row.latency_ms === null ? null : Number(row.latency_ms),
    tool_name: row.tool_name,
    connector_id: row.connector_id,
    risk_level: row.risk_level,
    autonomy_level: row.autonomy_level === null ? null : autonomyFromDb(row.autonomy_level),
    payload_ref: row.payload_ref,
  };
}
