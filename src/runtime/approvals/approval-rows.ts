import type { Approval } from "../contracts/approval.js";
import { autonomyFromDb, isoFromMs } from "../db/codec.js";
import type { ApprovalsTable } from "../db/tables.js";

/** A stored approval as the seed-003 Approval (with Keel's `required_capability`). */
export function approvalFromRow(row: ApprovalsTable): Approval {
  return {
    approval_id: row.id,
    created_at: isoFromMs(Number(row.created_at)),
    expires_at: isoFromMs(Number(row.expires_at)),
    status: row.status,
    trace_id: row.trace_id,
    refs: { event_id: row.event_id, task_id: row.task_id, step_id: row.step_id },
    risk_level: row.risk_level,
    autonomy_level: autonomyFromDb(row.autonomy_level),
    what: JSON.parse(row.what_json) as Record<string, unknown>,
    why: row.why,
    how_to_approve: row.how_to_approve,
    decision: {
      by: row.decided_by,
      at: row.decided_at === null ? null : isoFromMs(Number(row.decided_at)),
      reason: row.decision_reason,
    },
    required_capability: row.required_capability,
    request_hash: row.request_hash ?? null,
  };
}
