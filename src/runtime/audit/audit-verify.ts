import { KeelError, newId, sha256Hex, toKeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { type AuditEventsTable, type RuntimeDb, runtimeDb } from "../db/tables.js";
import { AUDIT_HEAD_ID, auditEventFromRow, chainHash, GENESIS_HASH } from "./audit-chain.js";
import { AuditWriter } from "./audit-writer.js";

/** One place where the stored audit log disagrees with its hash chain. */
export interface AuditTamperFinding {
  /** `hash-mismatch`: a recorded field changed. `broken-link`: an event was removed, inserted or
   * reordered. `sequence-gap`: numbering skips. `head-mismatch`: the newest events are missing
   * or the head was altered. `payload-altered`: an event's payload artifact is not the one it
   * was written with. `payload-missing`: the payload artifact is gone. `unreadable`: the
   * database cannot read the log past this point (a damaged page): what follows is unchecked. */
  kind:
    | "hash-mismatch"
    | "broken-link"
    | "sequence-gap"
    | "head-mismatch"
    | "payload-altered"
    | "payload-missing"
    | "unreadable";
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
  /**
   * When something was found: the `audit.tamper_detected` event that records it (its trace and
   * id), or why it could not be written (the findings stand either way).
   */
  recorded?: { traceId: string; auditId: string } | { error: { code: string; message: string } };
}

/** Options of `verifyAuditLog`. */
export interface VerifyAuditOptions {
  /**
   * Where `audit.tamper_detected` is written when verification finds something: a writer on the
   * store by default; `false` only reports.
   */
  record?: AuditWriter | false;
}

const PAGE = 2000;

/**
 * Recomputes the hash chain of the whole audit log, page by page in `seq` order, and compares
 * it with the stored hashes and the head; each payload artifact must hash to the `payload_hash`
 * its event chained (events written before payloads were chained: to its own stored hash).
 * Reports every finding and changes nothing, except that findings are themselves audited: one
 * `audit.tamper_detected` event (stage `operator`, outcome `failure`, the findings as payload) on
 * a trace of its own, appended after the log it checked.
 *
 * @example
 * const result = await verifyAuditLog(store);
 * if (!result.ok) console.table(result.findings);
 */
export async function verifyAuditLog(
  store: Store,
  options: VerifyAuditOptions = {},
): Promise<AuditVerification> {
  const result = await checkAuditLog(store);
  if (result.ok || options.record === false) return result;
  return {
    ...result,
    recorded: await recordTampering(options.record ?? new AuditWriter(store), result),
  };
}

/** Writes `audit.tamper_detected`; a failure to write is reported, never hides the findings. */
async function recordTampering(
  audit: AuditWriter,
  result: AuditVerification,
): Promise<NonNullable<AuditVerification["recorded"]>> {
  const traceId = newId();
  try {
    const event = await audit.write(traceId, {
      stage: "operator",
      type: "audit.tamper_detected",
      summary: `audit verification found ${result.findings.length} problem(s) in ${result.checked} events; first: ${result.findings[0]?.message ?? "?"}`,
      outcome: "failure",
      payload: { checked: result.checked, findings: result.findings },
    });
    return { traceId, auditId: event.audit_id };
  } catch (error) {
    const keel = toKeelError(error);
    return { error: { code: keel.code, message: keel.message } };
  }
}

function readPage(db: RuntimeDb, after: number) {
  return db
    .selectFrom("state_audit_events")
    .selectAll()
    .where("seq", ">", after)
    .orderBy("seq")
    .limit(PAGE)
    .execute();
}

async function checkAuditLog(store: Store): Promise<AuditVerification> {
  const db = runtimeDb(store);
  const findings: AuditTamperFinding[] = [];
  let previousHash = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  let after = 0;
  for (;;) {
    let rows: Awaited<ReturnType<typeof readPage>>;
    let payloads: Awaited<ReturnType<typeof payloadsOf>>;
    try {
      rows = await readPage(db, after);
      payloads = await payloadsOf(db, rows);
    } catch (error) {
      // A damaged page is a finding of the log (exit 1), not an operational error: the events
      // it held cannot be shown to be the ones written.
      const keel = toKeelError(error);
      if (keel.code !== "STORE_CORRUPT" && keel.code !== "STORE_IO_FAILED") throw error;
      findings.push({
        kind: "unreadable",
        seq: expectedSeq,
        auditId: null,
        message: `The audit log cannot be read from event #${expectedSeq} on (${keel.code}: the database page holding it is damaged); the events after it are unchecked.`,
      });
      return { ok: false, checked, findings };
    }
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
      const computed = chainHash(row.prev_hash, auditEventFromRow(row), row.payload_hash);
      if (computed !== row.event_hash) {
        findings.push({
          kind: "hash-mismatch",
          seq,
          auditId: row.id,
          message: `Event #${seq} (${row.type}, trace ${row.trace_id}) was altered after it was written.`,
        });
      }
      const payload = payloadFinding(row, payloads);
      if (payload) findings.push(payload);
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

type Payloads = Map<string, { body_json: string; content_hash: string }>;

/** The payload artifacts a page of events references, by id. */
async function payloadsOf(db: RuntimeDb, rows: readonly AuditEventsTable[]): Promise<Payloads> {
  const ids = rows.map((row) => row.payload_ref).filter((id): id is string => id !== null);
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom("state_artifacts")
    .select(["id", "body_json", "content_hash"])
    .where("id", "in", ids)
    .execute();
  return new Map(found.map((artifact) => [artifact.id, artifact]));
}

/** What is wrong with an event's payload artifact, if anything. */
function payloadFinding(row: AuditEventsTable, payloads: Payloads): AuditTamperFinding | null {
  if (row.payload_ref === null) return null;
  const seq = Number(row.seq);
  const artifact = payloads.get(row.payload_ref);
  if (!artifact) {
    return {
      kind: "payload-missing",
      seq,
      auditId: row.id,
      message: `Event #${seq} (${row.type}) references payload ${row.payload_ref}, which is gone.`,
    };
  }
  // Chained events compare with the hash the chain covers; older ones with the stored one.
  const expected = row.payload_hash ?? artifact.content_hash;
  if (sha256Hex(artifact.body_json) === expected) return null;
  return {
    kind: "payload-altered",
    seq,
    auditId: row.id,
    message: `The payload of event #${seq} (${row.type}, trace ${row.trace_id}) was altered after it was written.`,
  };
}

/** Verifies the audit log and throws `AUDIT_TAMPERED` (listing the findings) if it was altered. */
export async function assertAuditLogIntact(
  store: Store,
  options: VerifyAuditOptions = {},
): Promise<AuditVerification> {
  const result = await verifyAuditLog(store, options);
  if (result.ok) return result;
  throw new KeelError(
    "AUDIT_TAMPERED",
    `The audit log fails verification: ${result.findings.length} finding(s), first: ${result.findings[0]?.message}`,
    {
      details: { findings: result.findings, checked: result.checked, recorded: result.recorded },
      hint: "Treat the database as compromised: keep a copy for investigation and restore from a backup.",
    },
  );
}
