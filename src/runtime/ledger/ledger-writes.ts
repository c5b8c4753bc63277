import type { AuditRecord } from "../audit/audit-record.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import type { ArtifactsTable, ToolCallsTable } from "../db/tables.js";

/**
 * The ledger's writes, one implementation per dialect on the driver underneath (no query
 * builder on the hot path). Each write is one commit holding the ledger change, its artifact
 * and the audit event that records it: both happen or neither does.
 */
export interface LedgerWrites {
  /** The live (not failed) row for a tool and idempotency key, if any. */
  findLive(toolName: string, idempotencyKey: string): Promise<ToolCallsTable | undefined>;
  /** The request artifact, the `attempted` row and its audit event, committed together. */
  insertAttempted(call: ToolCallsTable, request: ArtifactsTable, audit: AuditRecord): Promise<void>;
  /**
   * Rewrites the row to `next` if its status is still `from` (so a late answer from a process
   * that recovery gave up on cannot overwrite what recovery wrote), with the outcome's artifact
   * and the audit event. False, with nothing written, when the row had moved on.
   */
  transition(
    next: ToolCallsTable,
    from: ToolCallStatus,
    artifact: ArtifactsTable | null,
    audit: AuditRecord,
  ): Promise<boolean>;
}
