import type { AuditRecord } from "../audit/audit-record.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import type { ArtifactsTable, ToolCallsTable } from "../db/tables.js";
import type { SeenLease } from "./call-lease.js";
import type { MaybePromise } from "./maybe-promise.js";

/**
 * The ledger's writes, one implementation per dialect on the driver underneath (no query
 * builder on the hot path). Each write is one commit holding the ledger change, its artifact
 * and the audit event that records it: both happen or neither does. A call's two writes give
 * their result at once when they are done at once (SQLite, nothing else under way), a promise
 * otherwise; either way the write is committed before its result is seen.
 */
export interface LedgerWrites {
  /**
   * The `attempted` row (its redacted request on it) and its audit event, committed together —
   * unless a live (not failed) call with the same tool and key exists: then nothing is written
   * and that row is returned. One write instead of a lookup and a write (one round trip on
   * Postgres).
   */
  attemptUnlessLive(call: ToolCallsTable, audit: AuditRecord): MaybePromise<AttemptWrite>;
  /**
   * Rewrites the row to `next` if its status is still `from` (so a late answer from a process
   * that recovery gave up on cannot overwrite what recovery wrote), with the outcome's artifact
   * and the audit event. False, with nothing written, when the row had moved on — or, with
   * `lease`, when its lease is no longer the one seen (its owner renewed it: still running).
   */
  transition(
    next: ToolCallsTable,
    from: ToolCallStatus,
    artifact: ArtifactsTable | null,
    audit: AuditRecord,
    lease?: SeenLease,
  ): MaybePromise<boolean>;
  /**
   * Extends the lease of an `attempted` call this owner holds; false when the call is no longer
   * `attempted` or no longer this owner's.
   */
  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean>;
  /**
   * Takes the lease of an `unknown` call to run it again (retry-safe tools), if its lease is still
   * the lapsed one seen, with the audit event recording the claim in the same commit: the new
   * fence (that event's sequence number), or null when another worker claimed it first, or it
   * was settled.
   */
  claimUnknown(claim: UnknownClaim, audit: AuditRecord): Promise<number | null>;
}

/** What recording `attempted` came to: the live call found instead, or the new call's fence. */
export type AttemptWrite = { live: ToolCallsTable } | { fence: number };

/** A claim of an `unknown` call: who takes it, until when, and the lapsed lease it saw. */
export interface UnknownClaim {
  id: string;
  owner: string;
  expiresAt: number;
  seen: SeenLease;
}
