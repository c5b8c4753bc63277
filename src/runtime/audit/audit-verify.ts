import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { runtimeDb } from "../db/tables.js";
import { AUDIT_HEAD_ID, auditEventFromRow, chainHash, GENESIS_HASH } from "./audit-chain.js";

/** One place where the stored audit log disagrees with its hash chain. */
export interface AuditTamperFinding {
  /** `hash-mismatch`: a recorded field changed. `broken-link`: an event was removed, inserted or
   * reordered. `sequence-gap`: numbering skips. `head-mismatch`: the newest events are missing
   * or the head was altered. */
  kind: "hash-mismatch" | "broken-link" | "sequence-gap" | "head-mismatch";
  seq: number | null;
  auditId: string | null;
  message: string;
}

/** The outcome of checking the whole audit log. */
export interface AuditVerification {
  ok: boolean;
  /** Events checked. */
  checked: number;
  findings: AuditTamperFinding[];
}

const PAGE = 2000;

/**
 * Recomputes the hash chain of the whole audit log, page by page in `seq` order, and compares
 * it with the stored hashes and the head. Reports every finding; never modifies anything.
 *
 * @example
 * const result = await verifyAuditLog(store);
 * if (!result.ok) console.table(result.findings);
 */
export async function verifyAuditLog(store: Store): Promise<AuditVerification> {
  const db = runtimeDb(store);
  const findings: AuditTamperFinding[] = [];
  let previousHash = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("state_audit_events")
      .selectAll()
      .where("seq", ">", after)
      .orderBy("seq")
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq !== expectedSeq) {
        findings.push({
          kind: "sequence-gap",
          seq,
          auditId: row.id,
          message: `Expected event #${expectedSeq} but found #${seq}: ${seq - expectedSeq} event(s) missing.`,
        });
      }
      if (row.prev_hash !== previousHash) {
        findings.push({
          kind: "broken-link",
          seq,
          auditId: row.id,
          message: `Event #${seq} does not link to the event before it (removed, inserted or reordered events).`,
        });
      }
      const computed = chainHash(row.prev_hash, auditEventFromRow(row));
      if (computed !== row.event_hash) {
        findings.push({
          kind: "hash-mismatch",
          seq,
          auditId: row.id,
          message: `Event #${seq} (${row.type}, trace ${row.trace_id}) was altered after it was written.`,
        });
      }
      previousHash = row.event_hash;
      expectedSeq = seq + 1;
      checked += 1;
    }
    if (rows.length < PAGE) break;
    after = Number(rows[rows.length - 1]?.seq);
  }
  const head = await db
    .selectFrom("state_audit_heads")
    .select(["last_seq", "last_hash"])
    .where("id", "=", AUDIT_HEAD_ID)
    .executeTakeFirst();
  const headSeq = head ? Number(head.last_seq) : 0;
  const headHash = head ? head.last_hash : GENESIS_HASH;
  if (headSeq !== expectedSeq - 1 || headHash !== previousHash) {
    findings.push({
      kind: "head-mismatch",
      seq: headSeq,
      auditId: null,
      message: `The log ends at #${expectedSeq - 1} but its head records #${headSeq}: the newest events were removed or the head was altered.`,
    });
  }
  return { ok: findings.length === 0, checked, findings };
}

/** Verifies the audit log and throws `AUDIT_TAMPERED` (listing the findings) if it was altered. */
export async function assertAuditLogIntact(store: Store): Promise<AuditVerification> {
  const result = await verifyAuditLog(store);
  if (result.ok) return result;
  throw new KeelError(
    "AUDIT_TAMPERED",
    `The audit log fails verification: ${result.findings.length} finding(s), first: ${result.findings[0]?.message}`,
    {
      details: { findings: result.findings, checked: result.checked },
      hint: "Treat the database as compromised: keep a copy for investigation and restore from a backup.",
    },
  );
}
