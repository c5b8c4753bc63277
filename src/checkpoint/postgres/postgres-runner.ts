import type pg from "pg";
import {
  BLOB_COLUMNS,
  CHECKPOINT_COLUMNS,
  UPSERT_THREAD,
  WRITE_COLUMNS,
  WRITE_CONFLICT,
} from "../durable/commit-sql.js";
import type { CommitBatch } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";

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
 * The whole commit as ONE statement: data-modifying CTEs insert the thread rows (with the lease
 * check), the writes, the values and the checkpoints from arrays. One statement is one
 * transaction and one round trip, whatever the number of steps in the batch; the rows of a
 * thread refused by its lease are filtered out by `thread_id IN (SELECT id FROM thr)`.
 */
const COMMIT_SQL = numbered(`WITH thr AS (
${UPSERT_THREADS}
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
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[])
    AS x(${CHECKPOINT_COLUMNS})
  WHERE x.thread_id IN (SELECT id FROM thr)
)
SELECT id FROM thr`);

/** `SqlRunner` on a pg pool. */
export class PostgresRunner implements SqlRunner {
  readonly dialect = "postgres" as const;

  constructor(private readonly pool: PostgresPool) {}

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    const result = await this.pool.query(numbered(sql), params as unknown[]);
    return result.rows as T[];
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    const result = await this.pool.query(numbered(sql), params as unknown[]);
    return result.rowCount ?? 0;
  }

  async commit(batch: CommitBatch): Promise<string[]> {
    const threads = batch.threads;
    // Each thread's writes were deduplicated when sealed (one statement may not upsert a key twice).
    const writes = threads.flatMap((thread) => thread.writes);
    const blobs = threads.flatMap((thread) => thread.blobs);
    const checkpoints = threads.flatMap((thread) => thread.checkpoints);
    const params: unknown[] = [
      // thr
      batch.now,
      batch.now,
      threads.map((t) => t.threadId),
      batch.ownerId,
      batch.now,
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
      ]),
    ];
    // A named statement is parsed and planned once per connection, not at every step.
    const result = await this.pool.query({
      name: "keel_checkpoint_commit_v1",
      text: COMMIT_SQL,
      values: params,
    });
    const written = new Set((result.rows as Array<{ id: string }>).map((row) => row.id));
    return threads.map((t) => t.threadId).filter((id) => !written.has(id));
  }
}

function columns<T>(rows: readonly T[], pick: ReadonlyArray<(row: T) => unknown>): unknown[][] {
  return pick.map((get) => rows.map(get));
}
