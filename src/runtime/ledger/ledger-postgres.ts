import type pg from "pg";
import { ARTIFACT_COLUMNS, artifactValues } from "../artifacts/artifact-store.js";
import {
  ARTIFACT_PLACEHOLDERS,
  AUDIT_LOCK_CTE,
  auditAppendCtes,
  auditLockCte,
  auditParams,
} from "../audit/audit-postgres.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import { castPlaceholders, numbered, type PostgresPool } from "../db/postgres-native.js";
import { type BatchedQuery, postgresBatchedQuery } from "../db/postgres-write-batch.js";
import type { ArtifactsTable, ToolCallsTable } from "../db/tables.js";
import type { SeenLease } from "./call-lease.js";
import {
  FREE_LIVE_KEY,
  MUTABLE_COLUMNS,
  MUTABLE_TYPES,
  mutableValues,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_TYPES,
  toolCallValues,
} from "./ledger-columns.js";
import type { AttemptWrite, LedgerWrites, UnknownClaim } from "./ledger-writes.js";

/**
 * The live call for the key, if any; otherwise the head is locked and advanced, and the call
 * and the event appear (`FROM head`), the call fenced by the event's sequence number. Returns
 * the fence when inserted, and the live row as JSON (neither: no chain head yet).
 */
const ATTEMPT_UNLESS_LIVE = numbered(`WITH live AS (
  SELECT * FROM state_tool_calls
  WHERE tool_name = ?::text AND live_key = ?::text
), ${auditLockCte("NOT EXISTS (SELECT 1 FROM live)")}, ${auditAppendCtes()}, call AS (
  INSERT INTO state_tool_calls (${TOOL_CALL_COLUMNS.join(", ")}, fence)
  SELECT ${castPlaceholders(TOOL_CALL_TYPES)}, head.seq FROM head
)
SELECT (SELECT seq FROM head) AS fence, (SELECT row_to_json(live) FROM live) AS live`);

/**
 * The row moves only if the head exists and the status is still the expected one; the head
 * advances (and the event and artifact appear) only if the row moved.
 */
function transitionSql(withArtifact: boolean, leased: boolean, failed: boolean): string {
  const set =
    MUTABLE_COLUMNS.map((column, i) => `${column} = ?::${MUTABLE_TYPES[i]}`).join(", ") +
    (failed ? FREE_LIVE_KEY : "");
  const art = withArtifact
    ? `, art AS (
  INSERT INTO state_artifacts (${ARTIFACT_COLUMNS}) SELECT ${ARTIFACT_PLACEHOLDERS} FROM head
)`
    : "";
  return numbered(`WITH ${AUDIT_LOCK_CTE}, upd AS (
  UPDATE state_tool_calls SET ${set}
  WHERE id = ?::text AND status = ?::text AND EXISTS (SELECT 1 FROM old)${
    // Recovery's move: only while the lease is the one it saw lapse.
    leased
      ? " AND lease_owner IS NOT DISTINCT FROM ?::text AND lease_expires_at IS NOT DISTINCT FROM ?::bigint"
      : ""
  }
  RETURNING id
), ${auditAppendCtes("EXISTS (SELECT 1 FROM upd)")}${art}
SELECT (SELECT count(*) FROM old)::int AS has_head, (SELECT count(*) FROM head)::int AS applied`);
}

const RENEW_LEASE = numbered(
  "UPDATE state_tool_calls SET lease_expires_at = ?::bigint WHERE id = ?::text AND status IN ('attempted', 'unknown') AND lease_owner = ?::text",
);
/**
 * The claim moves the row only if the head exists and the lease is the lapsed one seen; the
 * event is appended only if the row moved, and its sequence number is the row's new fence.
 */
const CLAIM_UNKNOWN = numbered(`WITH ${AUDIT_LOCK_CTE}, upd AS (
  UPDATE state_tool_calls
  SET lease_owner = ?::text, lease_expires_at = ?::bigint, fence = (SELECT last_seq + 1 FROM old)
  WHERE id = ?::text AND status = 'unknown' AND lease_owner IS NOT DISTINCT FROM ?::text
    AND lease_expires_at IS NOT DISTINCT FROM ?::bigint AND EXISTS (SELECT 1 FROM old)
  RETURNING fence
), ${auditAppendCtes("EXISTS (SELECT 1 FROM upd)")}
SELECT (SELECT count(*) FROM old)::int AS has_head, (SELECT seq FROM head) AS fence`);

/** The transition statements, by what they do, each prepared once per connection by its name. */
const transitions = new Map<string, { name: string; text: string }>();

function transitionStatement(
  withArtifact: boolean,
  leased: boolean,
  failed: boolean,
): { name: string; text: string } {
  const name = `keel_ledger_transition${withArtifact ? "_artifact" : ""}${leased ? "_leased" : ""}${failed ? "_failed" : ""}`;
  let statement = transitions.get(name);
  if (!statement) {
    statement = { name, text: transitionSql(withArtifact, leased, failed) };
    transitions.set(name, statement);
  }
  return statement;
}

/**
 * The ledger on the pg pool: each write is ONE statement (data-modifying CTEs), so one round trip
 * and one implicit transaction, prepared once per connection by name. The audit chain's head
 * row lock inside the statement serialises appenders across connections and machines. While
 * several calls are under way, their writes share commits (`postgresBatchedQuery`: one message
 * of their statements, one round trip, one transaction).
 */
export class PostgresLedgerWrites implements LedgerWrites {
  readonly #pool: PostgresPool;
  readonly #audit: AuditWriter;
  readonly #concurrent: () => boolean;

  constructor(pool: PostgresPool, audit: AuditWriter, concurrent: () => boolean = () => false) {
    this.#pool = pool;
    this.#audit = audit;
    this.#concurrent = concurrent;
  }

  /** The statement's rows: committed on its own, or with the writes of the other calls under way. */
  async #query<R>(query: BatchedQuery): Promise<R[]> {
    if (this.#concurrent()) return postgresBatchedQuery<R>(this.#pool, query);
    const { name, text, values } = query;
    return (await this.#pool.query<R & pg.QueryResultRow>({ name, text, values: [...values] }))
      .rows;
  }

  async attemptUnlessLive(call: ToolCallsTable, audit: AuditRecord): Promise<AttemptWrite> {
    const values = [
      call.tool_name,
      call.idempotency_key,
      ...auditParams(audit),
      ...toolCallValues(call),
    ];
    const query = { name: "keel_ledger_attempt", text: ATTEMPT_UNLESS_LIVE, values };
    type Answer = { fence: string | number | null; live: ToolCallsTable | null };
    let [answer] = await this.#query<Answer>(query);
    if (answer?.fence === null && answer.live === null) {
      // No chain head yet (new database, or after `keel db reset`): create it and write again.
      await this.#audit.ensureHead();
      [answer] = await this.#query<Answer>(query);
    }
    if (answer?.fence != null) return { fence: Number(answer.fence) };
    if (answer?.live) return { live: answer.live };
    throw new Error("the audit chain head vanished while the call was being recorded");
  }

  async transition(
    next: ToolCallsTable,
    from: ToolCallStatus,
    artifact: ArtifactsTable | null,
    audit: AuditRecord,
    lease?: SeenLease,
  ): Promise<boolean> {
    const values = [
      ...mutableValues(next),
      next.id,
      from,
      ...(lease ? [lease.owner, lease.expiresAt] : []),
      ...auditParams(audit),
      ...(artifact ? artifactValues(artifact) : []),
    ];
    const query = {
      ...transitionStatement(artifact !== null, lease !== undefined, next.status === "failed"),
      values,
    };
    let [row] = await this.#query<{ has_head: number; applied: number }>(query);
    if (row?.has_head === 0) {
      await this.#audit.ensureHead();
      [row] = await this.#query<{ has_head: number; applied: number }>(query);
    }
    return row?.applied === 1;
  }

  async renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    const query = { name: "keel_ledger_renew", text: RENEW_LEASE, values: [expiresAt, id, owner] };
    return ((await this.#pool.query(query)).rowCount ?? 0) === 1;
  }

  async claimUnknown(claim: UnknownClaim, audit: AuditRecord): Promise<number | null> {
    const { id, owner, expiresAt, seen } = claim;
    const values = [owner, expiresAt, id, seen.owner, seen.expiresAt, ...auditParams(audit)];
    const query = { name: "keel_ledger_claim", text: CLAIM_UNKNOWN, values };
    type Answer = { has_head: number; fence: string | number | null };
    let [answer] = await this.#query<Answer>(query);
    if (answer?.has_head === 0) {
      await this.#audit.ensureHead();
      [answer] = await this.#query<Answer>(query);
    }
    return answer?.fence == null ? null : Number(answer.fence);
  }
}
