import { KeelError } from "../../core/index.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { auditWriteFailed } from "../audit/audit-writer.js";

/**
 * What a failed ledger write means. Another worker recording the same tool and idempotency key
 * at the same instant trips the partial unique index: that call is theirs, and this process
 * must not run it. Anything else failed the one write that holds both the ledger change and
 * its audit event, so it is an audit write failure: the operation was not recorded, and (for
 * `attempted`) the tool did not run.
 */
export function ledgerWriteFailed(error: unknown, record: AuditRecord, key: string): unknown {
  if (isKeyTaken(error)) {
    return new KeelError(
      "ILLEGAL_TRANSITION",
      `Another worker recorded a call of "${record.event.tool_name}" with idempotency key "${key}" at the same time.`,
      {
        cause: error,
        details: { tool: record.event.tool_name, idempotencyKey: key },
        hint: "Another worker is handling this call; do not run it twice.",
      },
    );
  }
  return auditWriteFailed(error, record.event.trace_id, record.event.type);
}

function isKeyTaken(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === "23505") return e.constraint === "ix_state_tool_calls_tool_name_live_key";
  return (
    e.code === "SQLITE_CONSTRAINT_UNIQUE" &&
    typeof e.message === "string" &&
    e.message.includes("state_tool_calls.live_key")
  );
}
