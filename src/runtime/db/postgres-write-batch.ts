import type pg from "pg";

/** The part of the store's pg pool group commit needs: one-off statements and a client of its own. */
export type PostgresBatchPool = Pick<pg.Pool, "query" | "connect">;

/** A statement for `postgresBatchedWrite`: named (prepared once per connection), with values. */
export interface BatchedStatement {
  name: string;
  text: string;
  values: unknown[];
}

interface PendingWrite {
  statement: BatchedStatement;
  resolve: (result: pg.QueryResult) => void;
  reject: (error: unknown) => void;
}

interface PoolQueue {
  /** Writes waiting for the commit that is running to finish. */
  pending: PendingWrite[];
  running: boolean;
}

const queues = new WeakMap<PostgresBatchPool, PoolQueue>();

/**
 * Group commit on Postgres: `statement` (one statement that is a whole write: its own implicit
 * transaction when run alone) commits at once when no write of this pool is committing; one that
 * arrives while a write commits waits for it, then commits in ONE transaction (`BEGIN … COMMIT`
 * on one client) with every write that arrived meanwhile. The promise settles once that commit
 * is done, so a caller still goes on only after its write is durable.
 *
 * Writes that lock the same row (the ledger's: the audit chain's head) would otherwise commit
 * one after the other, each waiting for the last one's commit and paying its own WAL flush;
 * together they pay one. A shared transaction that fails (a statement's error, a deadlock, a
 * lost connection) wrote nothing: each of its writes is then run again alone and settles with
 * its own answer, so one write's error never becomes another's.
 *
 * @example
 * const result = await postgresBatchedWrite(pool, { name: "x", text: "UPDATE …", values });
 */
export function postgresBatchedWrite(
  pool: PostgresBatchPool,
  statement: BatchedStatement,
): Promise<pg.QueryResult> {
  let queue = queues.get(pool);
  if (!queue) {
    queue = { pending: [], running: false };
    queues.set(pool, queue);
  }
  if (queue.running)
    return new Promise((resolve, reject) => queue.pending.push({ statement, resolve, reject }));
  queue.running = true;
  const alone = pool.query(statement);
  const done = () => void drain(pool, queue);
  alone.then(done, done);
  return alone;
}

/** Commits what waited for the last commit, batch after batch, until nothing waits. */
async function drain(pool: PostgresBatchPool, queue: PoolQueue): Promise<void> {
  while (queue.pending.length > 0) {
    const batch = queue.pending;
    queue.pending = [];
    const [only] = batch;
    if (batch.length === 1 && only) await runAlone(pool, only);
    else await runTogether(pool, batch);
  }
  queue.running = false;
}

async function runAlone(pool: PostgresBatchPool, write: PendingWrite): Promise<void> {
  try {
    write.resolve(await pool.query(write.statement));
  } catch (error) {
    write.reject(error);
  }
}

/**
 * One transaction for `batch`. A statement that fails leaves nothing written (rolled back): each
 * write then runs again alone. A failed COMMIT may or may not have committed (a connection lost
 * while committing), so nothing is run again: every write rejects with that error, as a lone
 * statement's caller would hear it.
 */
async function runTogether(pool: PostgresBatchPool, batch: PendingWrite[]): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch {
    for (const write of batch) await runAlone(pool, write);
    return;
  }
  let results: pg.QueryResult[];
  try {
    await client.query("BEGIN");
    results = [];
    for (const write of batch) results.push(await client.query(write.statement));
  } catch {
    // A client that cannot even roll back is broken: released with the error, the pool drops it.
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    client.release(broken);
    for (const write of batch) await runAlone(pool, write);
    return;
  }
  try {
    await client.query("COMMIT");
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    for (const write of batch) write.reject(error);
    return;
  }
  client.release();
  for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
}
