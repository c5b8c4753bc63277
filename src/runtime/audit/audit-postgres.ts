import { ARTIFACT_COLUMNS, artifactValues } from "../artifacts/artifact-store.js";
import { castPlaceholders, numbered, type PostgresPool } from "../db/postgres-native.js";
import type { ArtifactsTable } from "../db/tables.js";
import { AUDIT_HEAD_ID } from "./audit-chain.js";
import { AUDIT_RECORD_COLUMNS, type AuditRecord, auditRowValues } from "./audit-record.js";

const EVENT_TYPES = AUDIT_RECORD_COLUMNS.map((column) =>
  column === "latency_ms" || column === "recorded_at" ? "bigint" : "text",
);

/** `?::type` placeholders for an artifact row (see `artifactValues`). */
export const ARTIFACT_PLACEHOLDERS = castPlaceholders([
  "text",
  "text",
  "text",
  "text",
  "bigint",
  "bigint",
]);

/**
 * The common table expression `old`: the chain head, locked (`FOR UPDATE`: concurrent
 * appenders on any connection or machine queue here, and each then sees the head its
 * predecessor committed). `when`, if given, is a condition for taking it at all (no head, no
 * append). No parameters.
 */
export function auditLockCte(when?: string): string {
  return `old AS (
  SELECT last_seq, last_hash FROM state_audit_heads
  WHERE id = '${AUDIT_HEAD_ID}'${when === undefined ? "" : ` AND ${when}`} FOR UPDATE
)`;
}

export const AUDIT_LOCK_CTE = auditLockCte();

/**
 * Common table expressions that append one event after `AUDIT_LOCK_CTE`: `head` advances the
 * head with the hash computed in SQL — sha256 over `prev_hash || "\n" || canonical JSON`,
 * exactly `chainHashOf` — and `ev` inserts the event. `gate`, when given, is a condition the
 * head update also requires, so that the event is appended only if the change it records
 * happened. Parameters, in order: `auditParams(record)`.
 */
export function auditAppendCtes(gate?: string): string {
  return `head AS (
  UPDATE state_audit_heads AS h
  SET last_seq = old.last_seq + 1,
      last_hash = encode(sha256(convert_to(old.last_hash || chr(10) || ?::text, 'UTF8')), 'hex'),
      updated_at = ?::bigint
  FROM old WHERE h.id = '${AUDIT_HEAD_ID}'${gate === undefined ? "" : ` AND ${gate}`}
  RETURNING h.last_seq AS seq, h.last_hash AS hash, old.last_hash AS prev_hash
), ev AS (
  INSERT INTO state_audit_events (${AUDIT_RECORD_COLUMNS.join(", ")}, seq, prev_hash, event_hash)
  SELECT ${castPlaceholders(EVENT_TYPES)}, head.seq, head.prev_hash, head.hash FROM head
)`;
}

/** `AUDIT_LOCK_CTE` then `auditAppendCtes()`: an append on its own. */
export function auditCtes(): string {
  return `${AUDIT_LOCK_CTE}, ${auditAppendCtes()}`;
}

/** The parameters of `auditAppendCtes`, in order. */
export function auditParams(record: AuditRecord): (string | number | null)[] {
  return [record.canonical, record.recordedAt, ...auditRowValues(record)];
}

const APPEND = numbered(`WITH ${auditCtes()}
SELECT seq FROM head`);

const APPEND_WITH_PAYLOAD = numbered(`WITH ${auditCtes()}, art AS (
  INSERT INTO state_artifacts (${ARTIFACT_COLUMNS}) SELECT ${ARTIFACT_PLACEHOLDERS} FROM head
)
SELECT seq FROM head`);

/**
 * Appends one event (and its payload artifact) as ONE statement: one round trip, its own
 * transaction. False, with nothing written, when the chain has no head row yet (the caller
 * creates it and retries). A keyed event is appended in a transaction instead (AuditWriter).
 */
export async function appendAuditPostgres(
  pool: PostgresPool,
  record: AuditRecord,
  payload: ArtifactsTable | null,
): Promise<boolean> {
  const values = auditParams(record);
  if (payload !== null) values.push(...artifactValues(payload));
  const result = await pool.query(
    payload === null
      ? { name: "keel_audit_append", text: APPEND, values }
      : { name: "keel_audit_append_payload", text: APPEND_WITH_PAYLOAD, values },
  );
  return result.rows.length === 1;
}
