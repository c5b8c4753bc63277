import { hostname } from "node:os";
import { KeelError } from "../../core/index.js";
import { toIntOrNull } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";

/**
 * The leases executions of this process hold (`owner \0 thread`). Two executions of one owner (one
 * saver) cannot tell each other apart in the database, so they are told apart here.
 */
const heldHere = new Set<string>();

function heldKey(threadId: string, owner: string): string {
  return `${owner}\u0000${threadId}`;
}

/**
 * Thread leases: the one writer of a thread holds `state_threads.lease_owner` until
 * `lease_expires_at`. Every commit of a saver checks it (see `UPSERT_THREAD`), so a second
 * process cannot write a leased thread even if it skipped `acquireLease`.
 *
 * Owner ids are `host:pid:random`, one per saver. A lease whose owner ran on this host in a
 * process that no longer exists is taken over at once (a crashed run resumes without waiting for
 * expiry); a lease of another host waits for its expiry.
 *
 * A lease is held by one execution: a second `acquireLease` of a thread this process holds is
 * refused (THREAD_LEASED) until `releaseLease`, even by the same owner.
 */
export async function acquireLease(
  db: SqlRunner,
  threadId: string,
  owner: string,
  options: { now: number; ttlMs: number },
): Promise<void> {
  const key = heldKey(threadId, owner);
  if (heldHere.has(key)) {
    throw new KeelError(
      "THREAD_LEASED",
      `Thread "${threadId}" is being run by another execution in this process (${owner}).`,
      {
        details: { threadId, leaseOwner: owner, leaseExpiresAt: null },
        hint: "Only one run may execute a thread at a time: wait for that run to finish.",
      },
    );
  }
  // Claimed before the first await, so two executions started together cannot both pass.
  heldHere.add(key);
  try {
    await takeLease(db, threadId, owner, options);
  } catch (error) {
    heldHere.delete(key);
    throw error;
  }
}

async function takeLease(
  db: SqlRunner,
  threadId: string,
  owner: string,
  options: { now: number; ttlMs: number },
): Promise<void> {
  const expires = options.now + options.ttlMs;
  const taken = await db.all<{ id: string }>(
    `INSERT INTO state_threads (id, lease_owner, lease_expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET lease_owner = excluded.lease_owner, lease_expires_at = excluded.lease_expires_at
     WHERE state_threads.lease_owner IS NULL OR state_threads.lease_owner = excluded.lease_owner
        OR state_threads.lease_expires_at < ?
     RETURNING id`,
    [threadId, owner, expires, options.now, options.now, options.now],
  );
  if (taken.length > 0) return;
  const holder = await db.all<{
    lease_owner: string | null;
    lease_expires_at: number | string | null;
  }>("SELECT lease_owner, lease_expires_at FROM state_threads WHERE id = ?", [threadId]);
  const current = holder[0]?.lease_owner ?? null;
  if (current !== null && ownerIsDead(current)) {
    const stolen = await db.run(
      "UPDATE state_threads SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND lease_owner = ?",
      [owner, expires, threadId, current],
    );
    if (stolen > 0) return;
  }
  const expiresAt = toIntOrNull(holder[0]?.lease_expires_at);
  throw new KeelError(
    "THREAD_LEASED",
    `Thread "${threadId}" is being run by another process (${current ?? "unknown"}), whose lease runs until ${expiresAt === null ? "unknown" : new Date(expiresAt).toISOString()}.`,
    {
      details: { threadId, leaseOwner: current, leaseExpiresAt: expiresAt },
      hint: "Only one process may resume a thread at a time: wait for that run to finish or for its lease to expire.",
    },
  );
}

/** Extends a lease this owner holds; false when it was lost (expired and taken by another). */
export async function renewLease(
  db: SqlRunner,
  threadId: string,
  owner: string,
  options: { now: number; ttlMs: number },
): Promise<boolean> {
  const changed = await db.run(
    "UPDATE state_threads SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?",
    [options.now + options.ttlMs, threadId, owner],
  );
  return changed > 0;
}

/** Gives a lease back (a no-op when this owner no longer holds it). */
export async function releaseLease(db: SqlRunner, threadId: string, owner: string): Promise<void> {
  const statement = releaseLeaseStatement(threadId, owner);
  await db.run(statement.sql, statement.params);
}

/**
 * The statement that releases a thread's lease, for a caller that commits it with another (a
 * run's last status): this process stops counting the lease as its own at once.
 */
export function releaseLeaseStatement(
  threadId: string,
  owner: string,
): { sql: string; params: unknown[] } {
  heldHere.delete(heldKey(threadId, owner));
  return {
    sql: "UPDATE state_threads SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?",
    params: [threadId, owner],
  };
}

/** True when `owner` names a process of this host that no longer exists. */
export function ownerIsDead(owner: string): boolean {
  const [host, pidText] = owner.split(":");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
