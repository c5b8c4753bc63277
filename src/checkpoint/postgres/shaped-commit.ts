import {
  BLOB_COLUMNS,
  CHECKPOINT_COLUMNS,
  pushBlobValues,
  pushCheckpointValues,
  pushWriteValues,
  WRITE_COLUMNS,
  WRITE_CONFLICT,
} from "../durable/commit-sql.js";
import type { CommitBatch, ThreadBatch } from "../durable/rows.js";

/**
 * The commit of one thread's few rows (a step: its checkpoint, a blob or two, the odd loose
 * write) as a statement of its own shape, with one scalar parameter per value. Postgres plans
 * and runs it in a fraction of the time of the general statement over unnested arrays, which the
 * runner keeps for larger batches.
 */

/** Rows per table up to which a batch gets a statement of its own shape. */
export const MAX_SHAPED_ROWS = 4;

/** True when `threads` is one thread small enough for a shaped statement. */
export function fitsShape(threads: readonly ThreadBatch[]): boolean {
  const thread = threads[0];
  return (
    threads.length === 1 &&
    thread !== undefined &&
    thread.writes.length <= MAX_SHAPED_ROWS &&
    thread.blobs.length <= MAX_SHAPED_ROWS &&
    thread.checkpoints.length <= MAX_SHAPED_ROWS
  );
}

// Parameters $1..$3: the thread id, now, this writer's lease identity.
const UPSERT_THREAD = `INSERT INTO state_threads (id, created_at, updated_at) VALUES ($1, $2, $2)
ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at
WHERE state_threads.lease_owner IS NULL OR state_threads.lease_owner = $3 OR state_threads.lease_expires_at < $2
RETURNING id`;

// `FOR SHARE`: a concurrent lease change waits for this commit, or this commit sees it.
const CHECK_THREAD = `SELECT id FROM state_threads
WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $3 OR lease_expires_at < $2)
FOR SHARE`;

// The types of each table's columns after thread_id (which every row takes from `thr`).
const WRITE_TYPES = ["text", "text", "text", "int", "text", "text", "text", "text"];
const BLOB_TYPES = ["text", "text", "int", "text", "text", "int", "int", "text", "text"];
const CHECKPOINT_TYPES = [
  "text",
  "text",
  "int",
  "text",
  "int",
  "int",
  "text",
  "text",
  "text",
  "text",
  "bigint",
  "int",
];

/**
 * The statements made so far, by `slotOf` their shape: a step finds its statement by an index
 * computed from four small numbers, not by a name built and hashed at every step (the name
 * template and the map lookup were ~1.4% of a step's JavaScript in a CPU profile).
 */
const statements: Array<{ name: string; text: string } | undefined> = [];

/** The index of a shape in `statements` (each count is at most `MAX_SHAPED_ROWS`). */
function slotOf(upsert: boolean, thread: ThreadBatch): number {
  const base = MAX_SHAPED_ROWS + 1;
  return (
    ((Number(upsert) * base + thread.writes.length) * base + thread.blobs.length) * base +
    thread.checkpoints.length
  );
}

/**
 * The statement name and text for a shape (made once per shape). With checkpoint rows, their
 * `INSERT` is the statement itself (the others are CTEs): its row count says whether the lease
 * let the thread through (0: refused), and the answer carries no row to describe and parse — a
 * per-step cost of the driver's. Without, it selects the thread's id as before.
 */
export function shapedStatement(
  upsert: boolean,
  thread: ThreadBatch,
): { name: string; text: string } {
  const slot = slotOf(upsert, thread);
  let statement = statements[slot];
  if (statement === undefined) {
    const name = `keel_ck3_${upsert ? "u" : "c"}${thread.writes.length}_${thread.blobs.length}_${thread.checkpoints.length}`;
    let next = 4;
    const values = (rows: number, types: readonly string[]): string => {
      const tuples: string[] = [];
      for (let row = 0; row < rows; row++)
        tuples.push(`(${types.map((type) => `$${next++}::${type}`).join(", ")})`);
      return tuples.join(", ");
    };
    const insert = (table: string, columns: string, rows: number, types: readonly string[]) =>
      `INSERT INTO ${table} (${columns})
  SELECT thr.id, v.* FROM thr CROSS JOIN (VALUES ${values(rows, types)}) AS v`;
    const parts = [`WITH thr AS (\n${upsert ? UPSERT_THREAD : CHECK_THREAD}\n)`];
    if (thread.writes.length > 0)
      parts.push(
        `w AS (${insert("state_checkpoint_writes", WRITE_COLUMNS, thread.writes.length, WRITE_TYPES)}\n  ${WRITE_CONFLICT})`,
      );
    if (thread.blobs.length > 0)
      parts.push(
        `b AS (${insert("state_checkpoint_blobs", BLOB_COLUMNS, thread.blobs.length, BLOB_TYPES)})`,
      );
    // Every data-modifying CTE runs once whether or not the statement reads it.
    const last =
      thread.checkpoints.length > 0
        ? insert(
            "state_checkpoints",
            CHECKPOINT_COLUMNS,
            thread.checkpoints.length,
            CHECKPOINT_TYPES,
          )
        : "SELECT id FROM thr";
    statement = { name, text: `${parts.join(",\n")}\n${last}` };
    statements[slot] = statement;
  }
  return statement;
}

/** The parameters of a shaped statement, in the order `shapedStatement` numbers them. */
export function shapedParams(thread: ThreadBatch, batch: CommitBatch): unknown[] {
  const params: unknown[] = [thread.threadId, batch.now, batch.ownerId];
  // Pushed in place: no array of each row's values spread into this one at every step.
  for (const w of thread.writes) pushWriteValues(params, w);
  for (const b of thread.blobs) pushBlobValues(params, b);
  for (const c of thread.checkpoints) pushCheckpointValues(params, c);
  return params;
}
