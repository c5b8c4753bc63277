import type pg from "pg";
import {
  BLOB_COLUMNS,
  CHECKPOINT_COLUMNS,
  THREAD_TOUCH_INTERVAL_MS,
  UPSERT_THREAD,
  WRITE_COLUMNS,
  WRITE_CONFLICT,
} from "../durable/commit-sql.js";
import type { CommitBatch, ThreadBatch } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";
import { fitsShape, shapedParams, shapedStatement } from "./shaped-commit.js";

/** The subset of a pg Pool the saver uses. */
export type PostgresPool = Pick<pg.Pool, "query">;

/** Turns `?` placeholders into `$1, $2, …`. */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

// The thread upsert reads its values from unnested arrays instead of one VALUES row.
const UPSERT_THREADS = UPSERT_THREAD.replace(
  "VALUES (?, ?, ?)",
  "SELECT id, ?::bigint, ?::bigint FROM unnest(?::text[]) AS t(id)",
);

/**
 * The same lease check without rewriting the thread rows (for threads this writer touched less
 * than a second ago): `FOR SHARE` makes a concurrent lease change wait for this commit, or this
 * commit see the new lease, exactly as the upsert's row lock does. A thread with no row is not
 * returned either; the runner then retries it with the upsert.
 */
const CHECK_THREADS = `SELECT id FROM state_threads
WHERE id = ANY(?::text[]) AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)
FOR SHARE`;

/**
 * The whole commit as ONE statement (for batches too large for `shaped-commit.ts`): data-modifying CTEs insert (or lease-check) the thread rows,
 * the writes, the values and the checkpoints from arrays. One statement is one transaction and
 * one round trip, whatever the number of steps in the batch; the rows of a thread refused by its
 * lease are filtered out by `thread_id IN (SELECT id FROM thr)`.
 */
function commitSql(threads: string): string {
  return numbered(`WITH thr AS (
${threads}
), w AS (
  INSERT INTO state_checkpoint_writes (${WRITE_COLUMNS})
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[])
    AS x(${WRITE_COLUMNS})
  WHERE x.thread_id IN (SELECT id FROM thr)
  ${WRITE_CONFLICT}
), b AS (
  INSERT INTO state_checkpoint_blobs (${BLOB_COLUMNS})
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[])
    AS x(${BLOB_COLUMNS})
  WHERE x.thread_id IN (SELECT id FROM thr)
), c AS (
  INSERT INTO state_checkpoints (${CHECKPOINT_COLUMNS})
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::int[])
    AS x(${CHECKPOINT_COLUMNS})
  WHERE x.thread_id IN (SELECT id FROM thr)
)
SELECT id FROM thr`);
}

const COMMIT_UPSERT = commitSql(UPSERT_THREADS);
const COMMIT_CHECK = commitSql(CHECK_THREADS);

/** `SqlRunner` on a pg pool. */
export class PostgresRunner implements SqlRunner {
  readonly dialect = "postgres" as const;

  /** When this runner last wrote each thread's row (updated_at), to refresh it about once a second. */
  private readonly touched = new Map<string, number>();

  constructor(private readonly pool: PostgresPool) {}

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const result = await this.pool.query(numbered(sql), params as unknown[]);
    return result.rows as T[];
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    const result = await this.pool.query(numbered(sql), params as unknown[]);
    return result.rowCount ?? 0;
  }

  async atomic(
    statements: ReadonlyArray<{ sql: string; params: readonly unknown[] }>,
  ): Promise<number[]> {
    if (statements.length === 0) return [];
    // Data-modifying CTEs: every statement runs in the one statement's transaction.
    const parts = statements.map(
      (statement, index) => `s${index} AS (${statement.sql} RETURNING 1)`,
    );
    const counts = statements.map((_, index) => `(SELECT COUNT(*) FROM s${index}) AS c${index}`);
    const result = await this.pool.query(
      numbered(`WITH ${parts.join(", ")} SELECT ${counts.join(", ")}`),
      statements.flatMap((statement) => [...statement.params]),
    );
    const row = (result.rows[0] ?? {}) as Record<string, unknown>;
    return statements.map((_, index) => Number(row[`c${index}`] ?? 0));
  }

  // Not async functions: a step's commit is the query's promise, no more (a fresh thread's lease
  // check retried as the upsert inside the same promise, not in a `then` of it).
  commit(batch: CommitBatch): Promise<string[]> {
    let fresh = true;
    for (const thread of batch.threads) {
      const last = this.touched.get(thread.threadId);
      if (last === undefined || batch.now - last >= THREAD_TOUCH_INTERVAL_MS) {
        fresh = false;
        break;
      }
    }
    if (fresh && fitsShape(batch.threads)) {
      const thread = batch.threads[0]!;
      return new Promise((resolve, reject) => {
        this.shaped(false, thread, batch, (error, refused) => {
          if (error) return reject(error);
          // Leased, or the row is gone (a deleted thread): nothing was written; the upsert
          // recreates a missing row and gives the final answer.
          if (!refused) return resolve([]);
          this.shaped(true, thread, batch, (again, leased) =>
            again ? reject(again) : resolve(leased ? [thread.threadId] : []),
          );
        });
      });
    }
    if (!fresh) return this.commitWith(true, batch.threads, batch);
    return this.commitWith(false, batch.threads, batch).then((refused) => {
      if (refused.length === 0) return refused;
      // As above, for a batch too large for a shaped statement.
      const again = new Set(refused);
      return this.commitWith(
        true,
        batch.threads.filter((thread) => again.has(thread.threadId)),
        batch,
      );
    });
  }

  /** One statement for `threads`; resolves to the ids refused by their lease. */
  private commitWith(
    upsert: boolean,
    threads: readonly ThreadBatch[],
    batch: CommitBatch,
  ): Promise<string[]> {
    if (fitsShape(threads)) {
      const thread = threads[0]!;
      return new Promise((resolve, reject) => {
        this.shaped(upsert, thread, batch, (error, refused) =>
          error ? reject(error) : resolve(refused ? [thread.threadId] : []),
        );
      });
    }
    return this.commitGeneral(upsert, threads, batch);
  }

  /**
   * One thread's rows as a statement of their shape, answered through `done` (the callback form:
   * the pool makes no promise of its own, nor does the store's error conversion wrapping it).
   */
  private shaped(
    upsert: boolean,
    thread: ThreadBatch,
    batch: CommitBatch,
    done: (error: Error | undefined, refused: boolean) => void,
  ): void {
    const { name, text } = shapedStatement(upsert, thread);
    this.pool.query({ name, text, values: shapedParams(thread, batch) }, (error, result) => {
      if (error) return done(error, false);
      // A shaped statement's rows (checkpoints, or the thread's id) are all or none.
      const written = (result.rowCount ?? 0) > 0;
      if (upsert && written) this.touch(thread.threadId, batch.now);
      done(undefined, !written);
    });
  }

  /** `commitWith` for batches too large for a shaped statement. */
  private async commitGeneral(
    upsert: boolean,
    threads: readonly ThreadBatch[],
    batch: CommitBatch,
  ): Promise<string[]> {
    const ids = threads.map((t) => t.threadId);
    const writes = threads.flatMap((thread) => thread.writes);
    const blobs = threads.flatMap((thread) => thread.blobs);
    const checkpoints = threads.flatMap((thread) => thread.checkpoints);
    const params: unknown[] = [
      // thr
      ...(upsert
        ? [batch.now, batch.now, ids, batch.ownerId, batch.now]
        : [ids, batch.ownerId, batch.now]),
      // w
      ...columns(writes, [
        (w) => w.threadId,
        (w) => w.checkpointNs,
        (w) => w.checkpointId,
        (w) => w.taskId,
        (w) => w.idx,
        (w) => w.taskPath,
        (w) => w.channel,
        (w) => w.valueJson,
        (w) => w.valueHash,
      ]),
      // b
      ...columns(blobs, [
        (b) => b.threadId,
        (b) => b.checkpointNs,
        (b) => b.channel,
        (b) => b.seq,
        (b) => b.version,
        (b) => b.encoding,
        (b) => b.baseSeq,
        (b) => b.chainCount,
        (b) => b.valueJson,
        (b) => b.valueHash,
      ]),
      // c
      ...columns(checkpoints, [
        (c) => c.threadId,
        (c) => c.checkpointNs,
        (c) => c.id,
        (c) => c.seq,
        (c) => c.parentId,
        (c) => c.formatVersion,
        (c) => c.step,
        (c) => c.source,
        (c) => c.checkpointJson,
        (c) => c.channelSeqsJson,
        (c) => c.metadataJson,
        (c) => c.createdAt,
        (c) => c.belowLatest,
      ]),
    ];
    // A named statement is parsed and planned once per connection, not at every step.
    const result = await this.pool.query({
      name: upsert ? "keel_checkpoint_commit_v2" : "keel_checkpoint_commit_check_v2",
      text: upsert ? COMMIT_UPSERT : COMMIT_CHECK,
      values: params,
    });
    const written = new Set((result.rows as Array<{ id: string }>).map((row) => row.id));
    if (upsert) for (const id of written) this.touch(id, batch.now);
    return ids.filter((id) => !written.has(id));
  }

  private touch(threadId: string, now: number): void {
    if (this.touched.size > 4096) this.touched.clear();
    this.touched.set(threadId, now);
  }
}

function columns<T>(rows: readonly T[], pick: ReadonlyArray<(row: T) => unknown>): unknown[][] {
  return pick.map((get) => rows.map(get));
}
