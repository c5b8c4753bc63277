import type { Store } from "../../store/index.js";
import { type SqliteHandle, sqliteWrite } from "./sqlite-native.js";

interface PendingWrite {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const queues = new WeakMap<SqliteHandle, PendingWrite[]>();
const savepoints = new WeakMap<SqliteHandle, (write: () => unknown) => unknown>();

/**
 * Group commit: `write` (synchronous statements on `db`) runs in a `BEGIN IMMEDIATE … COMMIT`
 * shared with every other write queued on this connection in the same turn of the event loop,
 * and the promise settles once that commit is done — so a caller still goes on only after its
 * write is durable. Each write runs under a savepoint of its own: one that throws is undone and
 * rejected alone, the others commit. A failed COMMIT rejects every write of the batch.
 *
 * Concurrent callers (the branches of a fan-out, several runs in one process) then share one
 * commit and the pages every write touches (the audit chain's head, the newest leaf of each
 * table), instead of paying for them once each; a lone caller waits one `setImmediate`.
 *
 * @example
 * await sqliteBatchedWrite(store, db, () => insert.run(row));
 */
export function sqliteBatchedWrite<T>(store: Store, db: SqliteHandle, write: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      queue = [];
      queues.set(db, queue);
      setImmediate(() => void flush(store, db));
    }
    queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
  });
}

async function flush(store: Store, db: SqliteHandle): Promise<void> {
  const batch = queues.get(db) ?? [];
  queues.delete(db);
  const [only] = batch;
  if (batch.length === 1 && only) {
    // Alone: its own transaction, no savepoint to pay for.
    try {
      only.resolve(await sqliteWrite(store, db, only.write));
    } catch (error) {
      only.reject(error);
    }
    return;
  }
  const savepointed = savepointFor(db);
  let settle: (() => void)[];
  try {
    // Each write's answer waits for the commit: nobody hears of a write that may yet be undone.
    settle = await sqliteWrite(store, db, () =>
      batch.map((pending) => {
        try {
          const value = savepointed(pending.write);
          return () => pending.resolve(value);
        } catch (error) {
          return () => pending.reject(error);
        }
      }),
    );
  } catch (error) {
    for (const pending of batch) pending.reject(error);
    return;
  }
  for (const answer of settle) answer();
}

/** better-sqlite3 runs a transaction function called inside a transaction as a savepoint. */
function savepointFor(db: SqliteHandle): (write: () => unknown) => unknown {
  let savepointed = savepoints.get(db);
  if (!savepointed) {
    savepointed = db.transaction((write: () => unknown) => write());
    savepoints.set(db, savepointed);
  }
  return savepointed;
}
