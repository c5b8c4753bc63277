import type { Store } from "../../store/index.js";
import { insertArtifactSqlite } from "../artifacts/artifact-sqlite.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { appendAuditSqlite } from "../audit/audit-sqlite.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import {
  prepared,
  type SqliteHandle,
  sqliteIdle,
  sqliteWrite,
  sqliteWriteNow,
} from "../db/sqlite-native.js";
import { sqliteBatchedWrite } from "../db/sqlite-write-batch.js";
import type { ArtifactsTable, ToolCallsTable } from "../db/tables.js";
import type { SeenLease } from "./call-lease.js";
import {
  ATTEMPTED_CONSTANTS,
  attemptedValues,
  FREE_LIVE_KEY,
  MUTABLE_COLUMNS,
  mutableValues,
  TOOL_CALL_COLUMNS,
} from "./ledger-columns.js";
import type { AttemptWrite, LedgerWrites, UnknownClaim } from "./ledger-writes.js";
import { catchNow, type MaybePromise } from "./maybe-promise.js";

// `live_key` is set exactly while the call is not failed (a CHECK): the partial unique index.
const FIND_LIVE = "SELECT * FROM state_tool_calls WHERE tool_name = ? AND live_key = ?";
/**
 * A new call's row: `attempted`, with none of an outcome's columns and its request on the row
 * (the constants written in the text, so only what differs between calls is bound).
 */
const INSERT_ATTEMPTED = `INSERT INTO state_tool_calls (${TOOL_CALL_COLUMNS.join(", ")}, fence)
VALUES (${TOOL_CALL_COLUMNS.map((column) => ATTEMPTED_CONSTANTS[column] ?? "?").join(", ")}, ?)`;
const SET_MUTABLE = MUTABLE_COLUMNS.map((c) => `${c} = ?`).join(", ");

/** The UPDATE statements of a transition, built once each (the ledger's hot path). */
const updates = new Map<string, string>();

/**
 * The row's move to `next` if its status is still `from`; a failure also frees the key; with a
 * lease, recovery's move: only while the lease is the one it saw lapse (`IS` also matches nulls).
 */
function updateCallSql(failed: boolean, leased: boolean): string {
  const key = `${failed}:${leased}`;
  let text = updates.get(key);
  if (text === undefined) {
    text = `UPDATE state_tool_calls SET ${SET_MUTABLE}${failed ? FREE_LIVE_KEY : ""}
WHERE id = ? AND status = ?${leased ? " AND lease_owner IS ? AND lease_expires_at IS ?" : ""}`;
    updates.set(key, text);
  }
  return text;
}
const RENEW_LEASE =
  "UPDATE state_tool_calls SET lease_expires_at = ? WHERE id = ? AND status IN ('attempted', 'unknown') AND lease_owner = ?";
const CLAIM_UNKNOWN = `UPDATE state_tool_calls SET lease_owner = ?, lease_expires_at = ?, fence = ?
WHERE id = ? AND status = 'unknown' AND lease_owner IS ? AND lease_expires_at IS ?`;

/** Thrown inside a transition to roll it back when the row had moved on. */
class Moved extends Error {}

/** A transition's answer when its write was refused: false when the row had moved on. */
function movedOn(error: unknown): false {
  if (error instanceof Moved) return false;
  throw error;
}

/**
 * The ledger on SQLite's native connection: cached prepared statements, and each write committed
 * before its result is seen (under WAL with `synchronous = NORMAL`, a commit appends the changed
 * pages to the log without an fsync; it survives a killed process). A lone call's write is done
 * at once and its result returned, without a promise. While several calls are under way, their
 * writes share commits (`sqliteBatchedWrite`), each under its own savepoint.
 */
export class SqliteLedgerWrites implements LedgerWrites {
  readonly #store: Store;
  readonly #db: SqliteHandle;
  readonly #concurrent: () => boolean;

  constructor(store: Store, db: SqliteHandle, concurrent: () => boolean) {
    this.#store = store;
    this.#db = db;
    this.#concurrent = concurrent;
  }

  /**
   * One commit of its own — at once when the connection is free (a throw propagates) —, or shared
   * with the writes of the other calls under way.
   */
  #write<T>(write: () => T): MaybePromise<T> {
    if (this.#concurrent()) return sqliteBatchedWrite(this.#store, this.#db, write);
    return sqliteIdle(this.#db)
      ? sqliteWriteNow(this.#db, write)
      : sqliteWrite(this.#store, this.#db, write);
  }

  attemptUnlessLive(call: ToolCallsTable, audit: AuditRecord): MaybePromise<AttemptWrite> {
    const db = this.#db;
    // Looked up under the write lock: no other process can record the key in between.
    return this.#write(() => {
      const live = prepared(db, FIND_LIVE).get(call.tool_name, call.idempotency_key) as
        | ToolCallsTable
        | undefined;
      if (live) return { live };
      // The event first: its sequence number is the call's fence.
      const { seq } = appendAuditSqlite(db, audit);
      prepared(db, INSERT_ATTEMPTED).run(...attemptedValues(call), seq);
      return { fence: seq };
    });
  }

  transition(
    next: ToolCallsTable,
    from: ToolCallStatus,
    artifact: ArtifactsTable | null,
    audit: AuditRecord,
    lease?: SeenLease,
  ): MaybePromise<boolean> {
    const db = this.#db;
    const seen = lease ? [lease.owner, lease.expiresAt] : [];
    return catchNow(
      () =>
        this.#write(() => {
          // The artifact first: the row's foreign key to it is checked at once.
          if (artifact) insertArtifactSqlite(db, artifact);
          const { changes } = prepared(
            db,
            updateCallSql(next.status === "failed", lease !== undefined),
          ).run(...mutableValues(next), next.id, from, ...seen);
          if (changes !== 1) throw new Moved();
          appendAuditSqlite(db, audit);
          return true;
        }),
      movedOn,
    );
  }

  async renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    const db = this.#db;
    return this.#write(() => prepared(db, RENEW_LEASE).run(expiresAt, id, owner).changes === 1);
  }

  async claimUnknown(claim: UnknownClaim, audit: AuditRecord): Promise<number | null> {
    const db = this.#db;
    const { id, owner, expiresAt, seen } = claim;
    try {
      return await this.#write(() => {
        const { seq } = appendAuditSqlite(db, audit);
        const { changes } = prepared(db, CLAIM_UNKNOWN).run(
          owner,
          expiresAt,
          seq,
          id,
          seen.owner,
          seen.expiresAt,
        );
        if (changes !== 1) throw new Moved();
        return seq;
      });
    } catch (error) {
      movedOn(error);
      return null;
    }
  }
}
