import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ownerIsDead } from "../../checkpoint/index.js";
import type { ToolCallsTable } from "../db/tables.js";

/** How long an `attempted` call's lease lasts without renewal (renewed every third of it). */
export const DEFAULT_CALL_LEASE_MS = 30_000;

/**
 * A ledger's owner id, `host:pid:random` like the run store's thread leases: a row whose owner
 * ran on this host in a process that no longer exists has lapsed at once.
 */
export function newLedgerOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

/** The lease an `attempted` row was seen with; recovery moves the row only if it is unchanged. */
export interface SeenLease {
  owner: string | null;
  expiresAt: number | null;
}

export function seenLease(row: ToolCallsTable): SeenLease {
  return {
    owner: row.lease_owner,
    expiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
  };
}

/**
 * True when nobody may still be running the call: its lease expired, or its owner was a process
 * of this host that has died, or it was written before calls had leases. A live lease (another
 * worker's call in flight) is never lapsed, whatever the caller wants.
 */
export function leaseLapsed(row: ToolCallsTable, now: number): boolean {
  const { owner, expiresAt } = seenLease(row);
  if (owner === null || expiresAt === null) return true;
  return expiresAt <= now || ownerIsDead(owner);
}
