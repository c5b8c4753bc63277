import { sql } from "kysely";
import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { ownerIsDead } from "./lease.js";

/** A thread lease some process holds now, with the runs on that thread that may be executing. */
export interface LiveLease {
  readonly threadId: string;
  readonly leaseOwner: string;
  readonly leaseExpiresAt: number;
  /** The thread's `pending` or `running` runs (empty for a lease taken without a run record). */
  readonly runIds: readonly string[];
}

/**
 * The thread leases that are live at `now`: not expired, and not held by a process of this host
 * that no longer exists (such a lease is taken over at once, see `acquireLease`). A database
 * without the runs' tables (not migrated that far) has none.
 */
export async function liveLeases(store: Store, now: number): Promise<LiveLease[]> {
  let rows: {
    thread_id: string;
    lease_owner: string;
    lease_expires_at: number | string;
    run_id: string | null;
  }[];
  try {
    rows = (
      await sql<{
        thread_id: string;
        lease_owner: string;
        lease_expires_at: number | string;
        run_id: string | null;
      }>`SELECT t.id AS thread_id, t.lease_owner, t.lease_expires_at, r.id AS run_id
         FROM state_threads t
         LEFT JOIN state_runs r ON r.thread_id = t.id AND r.status IN ('pending', 'running')
         WHERE t.lease_owner IS NOT NULL AND t.lease_expires_at >= ${now}
         ORDER BY t.id, r.id`.execute(store.kysely)
    ).rows;
  } catch (error) {
    if (await tablesMissing(store)) return [];
    throw error;
  }
  const byThread = new Map<string, LiveLease & { runIds: string[] }>();
  for (const row of rows) {
    if (ownerIsDead(row.lease_owner)) continue;
    let lease = byThread.get(row.thread_id);
    if (!lease) {
      lease = {
        threadId: row.thread_id,
        leaseOwner: row.lease_owner,
        leaseExpiresAt: Number(row.lease_expires_at),
        runIds: [],
      };
      byThread.set(row.thread_id, lease);
    }
    if (row.run_id !== null) lease.runIds.push(row.run_id);
  }
  return [...byThread.values()];
}

async function tablesMissing(store: Store): Promise<boolean> {
  const tables = await store.kysely.introspection.getTables();
  const names = new Set(tables.map((t) => t.name));
  return !names.has("state_threads") || !names.has("state_runs");
}

/**
 * Refuses `action` (a restore, a reset) while any run holds a live lease: replacing or emptying
 * the database under a run corrupts its thread, or on SQLite sends its writes to the file moved
 * aside. `--force` skips the question, never this check. STORE_IN_USE names the runs.
 *
 * @example
 * await assertNoLiveRuns(store, "restore the database", Date.now());
 */
export async function assertNoLiveRuns(store: Store, action: string, now: number): Promise<void> {
  const live = await liveLeases(store, now);
  if (live.length === 0) return;
  const names = live.map((lease) =>
    lease.runIds.length > 0
      ? `run ${lease.runIds.join(", ")} (thread ${lease.threadId})`
      : `thread ${lease.threadId}`,
  );
  throw new KeelError(
    "STORE_IN_USE",
    `Cannot ${action}: ${live.length === 1 ? "a run is" : `${live.length} runs are`} executing: ${names.join("; ")}.`,
    {
      details: {
        runs: live.flatMap((lease) =>
          (lease.runIds.length > 0 ? lease.runIds : [null]).map((runId) => ({
            runId,
            threadId: lease.threadId,
            leaseOwner: lease.leaseOwner,
            leaseExpiresAt: lease.leaseExpiresAt,
          })),
        ),
      },
      hint: "Wait for the runs to finish, or stop their processes (`keel runs cancel <run>`); a lease of a process that died is released at once. --force does not override a live lease.",
    },
  );
}
