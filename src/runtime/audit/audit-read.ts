import { sql } from "kysely";
import type { Store } from "../../store/index.js";
import type { AuditEvent } from "../contracts/audit-event.js";
import type { AuditOutcome, PipelineStage } from "../contracts/enums.js";
import { stageToDb } from "../db/codec.js";
import { runtimeDb } from "../db/tables.js";
import { auditEventFromRow } from "./audit-chain.js";

/**
 * Every audit event of one trace, oldest first (what `keel audit <trace_id>` tells).
 *
 * @example
 * for (const e of await readAuditTrace(store, traceId)) console.log(e.timestamp, e.type, e.summary);
 */
export async function readAuditTrace(store: Store, traceId: string): Promise<AuditEvent[]> {
  const rows = await runtimeDb(store)
    .selectFrom("state_audit_events")
    .selectAll()
    .where("trace_id", "=", traceId)
    .orderBy("seq")
    .execute();
  return rows.map(auditEventFromRow);
}

/** Filters of an audit search; all optional, combined with AND. */
export interface AuditSearch {
  /** An exact type (`gate.approved`) or a prefix ending in `.` (`gate.`). */
  type?: string;
  stage?: PipelineStage;
  outcome?: AuditOutcome;
  /** Words the summary must contain (case-insensitive substring). */
  text?: string;
  /** Unix milliseconds, inclusive. */
  since?: number;
  until?: number;
  /** At most this many, newest first (default 100). */
  limit?: number;
}

/** Searches the audit log, newest first. */
export async function searchAudit(store: Store, search: AuditSearch = {}): Promise<AuditEvent[]> {
  let query = runtimeDb(store).selectFrom("state_audit_events").selectAll();
  if (search.type !== undefined) {
    const pattern = `${escapeLike(search.type)}%`;
    query = search.type.endsWith(".")
      ? query.where(sql<boolean>`type LIKE ${pattern} ESCAPE '\\'`)
      : query.where("type", "=", search.type);
  }
  if (search.stage !== undefined) query = query.where("stage", "=", stageToDb(search.stage));
  if (search.outcome !== undefined) query = query.where("outcome", "=", search.outcome);
  if (search.text !== undefined) {
    const pattern = `%${escapeLike(search.text.toLowerCase())}%`;
    query = query.where(sql<boolean>`lower(summary) LIKE ${pattern} ESCAPE '\\'`);
  }
  if (search.since !== undefined) query = query.where("recorded_at", ">=", search.since);
  if (search.until !== undefined) query = query.where("recorded_at", "<=", search.until);
  const rows = await query
    .orderBy("seq", "desc")
    .limit(search.limit ?? 100)
    .execute();
  return rows.map(auditEventFromRow);
}

/** Makes `%`, `_` and `\` in user text literal under `ESCAPE '\'` (both dialects). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
