import type pg from "pg";
import { pgDriver } from "../../store/index.js";
import type { PostgresPool } from "./postgres-native.js";

/** A parameter of a batched statement: what the ledger's statements bind. */
export type BatchValue = string | number | null;

/** A named statement (prepared once per connection when it runs alone) and its parameters. */
export interface BatchedQuery {
  name: string;
  /** The statement, with `$1, $2, …` placeholders, each cast (`$1::text`). */
  text: string;
  values: readonly BatchValue[];
}

interface PendingQuery {
  query: BatchedQuery;
  resolve: (rows: unknown[]) => void;
  reject: (error: unknown) => void;
}

/** Per pool: the queries waiting for the next batch, and whether a batch is on its way. */
interface PoolBatch {
  queue: PendingQuery[];
  inFlight: boolean;
  scheduled: boolean;
}

const batches = new WeakMap<PostgresPool, PoolBatch>();

/**
 * Group commit on Postgres: `query` (one write statement, its own transaction when alone) is sent
 * with every other write queued on this pool in the same turn of the event loop, or while the
 * previous batch was on its way, as ONE simple-protocol message holding all their statements:
 * one round trip, one transaction, one WAL flush. The statements run in queue order, each seeing
 * the ones before it (the audit chain's head moves once per event). The promise settles with the
 * statement's rows once that transaction has committed.
 *
 * A batch the server refuses (an error in any statement rolls back all of them) is sent again
 * statement by statement, each its own transaction: the failing write fails alone, the others
 * commit. A lost connection rejects every write of the batch (as it would a lone write: whether
 * its commit happened is unknown). A lone write goes out at once, as a named prepared statement.
 *
 * Why a message of several statements and not one statement of several rows: writes chained by
 * the audit head (each event's hash is its predecessor's) update the same row once each, which
 * the data-modifying CTEs of one statement cannot do (they all see one snapshot).
 *
 * @example
 * const [row] = await postgresBatchedQuery(pool, { name: "keel_x", text: "… $1::text …", values: ["a"] });
 */
export function postgresBatchedQuery<R>(pool: PostgresPool, query: BatchedQuery): Promise<R[]> {
  return new Promise<R[]>((resolve, reject) => {
    let batch = batches.get(pool);
    if (!batch) {
      batch = { queue: [], inFlight: false, scheduled: false };
      batches.set(pool, batch);
    }
    batch.queue.push({ query, resolve: resolve as (rows: unknown[]) => void, reject });
    if (!batch.inFlight && !batch.scheduled) {
      batch.scheduled = true;
      const scheduled = batch;
      setImmediate(() => {
        scheduled.scheduled = false;
        void send(pool, scheduled);
      });
    }
  });
}

/** Sends what is queued, then, while more was queued meanwhile, the next batch. */
async function send(pool: PostgresPool, batch: PoolBatch): Promise<void> {
  batch.inFlight = true;
  try {
    while (batch.queue.length > 0) {
      const taken = batch.queue;
      batch.queue = [];
      await sendBatch(pool, taken);
    }
  } finally {
    batch.inFlight = false;
  }
}

async function sendBatch(pool: PostgresPool, taken: readonly PendingQuery[]): Promise<void> {
  const [only] = taken;
  if (taken.length === 1 && only) return sendAlone(pool, only);
  let results: pg.QueryResult[];
  try {
    // No parameters: pg sends a simple Query message, which the server runs as one transaction.
    const answer = (await pool.query(taken.map((p) => inlined(p.query)).join(";\n"))) as
      | pg.QueryResult
      | pg.QueryResult[];
    results = Array.isArray(answer) ? answer : [answer];
  } catch (error) {
    if (!(error instanceof pgDriver().DatabaseError)) {
      for (const pending of taken) pending.reject(error);
      return;
    }
    // The server rolled the whole batch back: each write again on its own, in queue order (sent
    // side by side, a pool's connections could commit them in any order).
    for (const pending of taken) await sendAlone(pool, pending);
    return;
  }
  taken.forEach((pending, i) => {
    pending.resolve(results[i]?.rows ?? []);
  });
}

async function sendAlone(pool: PostgresPool, pending: PendingQuery): Promise<void> {
  try {
    const { name, text, values } = pending.query;
    pending.resolve((await pool.query({ name, text, values: [...values] })).rows);
  } catch (error) {
    pending.reject(error);
  }
}

/** The statement with each `$n` replaced by its value as a quoted literal (cast by the text). */
export function inlined(query: BatchedQuery): string {
  return query.text.replace(/\$(\d+)/g, (placeholder, n: string) => {
    const index = Number(n) - 1;
    if (index >= query.values.length) {
      throw new RangeError(`${query.name}: ${placeholder} has no value`);
    }
    return sqlLiteral(query.values[index] ?? null);
  });
}

/** A value as a SQL literal: NULL, or a quoted string (numbers too: the placeholder's cast types it). */
export function sqlLiteral(value: BatchValue): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return `'${value}'`;
  }
  return pgDriver().escapeLiteral(value);
}
