/**
 * The read, list, delete and prune statements of the durable savers, shared by both dialects.
 * Each is one autocommitted statement (see `SqlRunner`).
 */
import type { StoredBlob } from "./blob-codec.js";
import type { CheckpointRow, Place, ThreadSummary, WriteRow } from "./rows.js";
import { toInt, toIntOrNull } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";

const CHECKPOINT_COLUMNS =
  "thread_id, checkpoint_ns, id, seq, parent_checkpoint_id, format_version, step, source, " +
  "checkpoint_json, channel_seqs_json, metadata_json, created_at";

interface RawCheckpoint {
  thread_id: string;
  checkpoint_ns: string;
  id: string;
  seq: number | string;
  parent_checkpoint_id: string | null;
  format_version: number | string;
  step: number | string;
  source: string;
  checkpoint_json: string;
  channel_seqs_json: string;
  metadata_json: string;
  created_at: number | string;
}

function toCheckpointRow(raw: RawCheckpoint): CheckpointRow {
  return {
    threadId: raw.thread_id,
    checkpointNs: raw.checkpoint_ns,
    id: raw.id,
    seq: toInt(raw.seq),
    parentId: raw.parent_checkpoint_id,
    formatVersion: toInt(raw.format_version),
    step: toInt(raw.step),
    source: raw.source,
    checkpointJson: raw.checkpoint_json,
    channelSeqsJson: raw.channel_seqs_json,
    metadataJson: raw.metadata_json,
    createdAt: toInt(raw.created_at),
  };
}

/** The checkpoint `id` of a place, or its latest (greatest id: ids are UUIDv7) when `id` is undefined. */
export async function readCheckpoint(
  db: SqlRunner,
  place: Place,
  id: string | undefined,
): Promise<CheckpointRow | undefined> {
  const rows =
    id === undefined
      ? await db.all<RawCheckpoint>(
          `SELECT ${CHECKPOINT_COLUMNS} FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY id DESC LIMIT 1`,
          [place.threadId, place.checkpointNs],
        )
      : await db.all<RawCheckpoint>(
          `SELECT ${CHECKPOINT_COLUMNS} FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND id = ?`,
          [place.threadId, place.checkpointNs, id],
        );
  return rows[0] ? toCheckpointRow(rows[0]) : undefined;
}

/**
 * The highest seq of a place (0 when it has no checkpoint) and its greatest id: the greater of
 * the seq of the latest row (greatest id) and the highest seq of the rows marked
 * `is_below_latest` (see `placeNewId`), two index seeks however long the thread's history.
 */
export async function readMaxSeq(
  db: SqlRunner,
  place: Place,
): Promise<{ maxSeq: number; maxId: string | undefined }> {
  const rows = await db.all<{ id: string | null; seq: number | string | null }>(
    `SELECT id, seq FROM (SELECT id, seq FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY id DESC LIMIT 1) latest
UNION ALL
SELECT NULL, MAX(seq) FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND is_below_latest = 1`,
    [place.threadId, place.checkpointNs, place.threadId, place.checkpointNs],
  );
  let maxSeq = 0;
  let maxId: string | undefined;
  for (const row of rows) {
    maxSeq = Math.max(maxSeq, toIntOrNull(row.seq) ?? 0);
    if (row.id !== null) maxId = row.id;
  }
  return { maxSeq, maxId };
}

/** Checkpoints newest first; `threadId` undefined lists every thread. */
export async function listCheckpoints(
  db: SqlRunner,
  query: { threadId?: string; checkpointNs?: string; beforeId?: string; limit?: number },
): Promise<CheckpointRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.threadId !== undefined) {
    where.push("thread_id = ?");
    params.push(query.threadId);
  }
  if (query.checkpointNs !== undefined) {
    where.push("checkpoint_ns = ?");
    params.push(query.checkpointNs);
  }
  if (query.beforeId !== undefined) {
    where.push("id < ?");
    params.push(query.beforeId);
  }
  const order = "id DESC";
  const limit = query.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(query.limit))}` : "";
  const rows = await db.all<RawCheckpoint>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM state_checkpoints${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${order}${limit}`,
    params,
  );
  return rows.map(toCheckpointRow);
}

interface RawBlob {
  channel: string;
  checkpoint_seq: number | string;
  version: string;
  encoding: string;
  base_checkpoint_seq: number | string | null;
  value_json: string | null;
  value_hash: string;
}

/**
 * The blobs of the given (channel, seq) pairs and every blob their append chains reach, in one
 * recursive query. Each value and each step of a chain is one seek of the blobs' key: `CROSS JOIN`
 * keeps the wanted or chain row as the outer loop (SQLite does not reorder it). Without it SQLite
 * walked the thread's whole range of the key at every step of a chain once that key became an
 * index beside a rowid table (migration 035). Postgres reads it as an inner join.
 */
export async function readBlobs(
  db: SqlRunner,
  place: Place,
  wanted: ReadonlyArray<readonly [channel: string, seq: number]>,
): Promise<StoredBlob[]> {
  if (wanted.length === 0) return [];
  const seed = db.dialect === "postgres" ? "(?::text, ?::int)" : "(?, ?)";
  const params: unknown[] = [];
  for (const [channel, seq] of wanted) params.push(channel, seq);
  params.push(place.threadId, place.checkpointNs, place.threadId, place.checkpointNs);
  const rows = await db.all<RawBlob>(
    `WITH RECURSIVE wanted(channel, seq) AS (VALUES ${wanted.map(() => seed).join(", ")}),
     chain(channel, checkpoint_seq, version, encoding, base_checkpoint_seq, value_json, value_hash) AS (
       SELECT b.channel, b.checkpoint_seq, b.version, b.encoding, b.base_checkpoint_seq, b.value_json, b.value_hash
         FROM wanted w CROSS JOIN state_checkpoint_blobs b
        WHERE b.thread_id = ? AND b.checkpoint_ns = ? AND b.checkpoint_seq = w.seq AND b.channel = w.channel
       UNION
       SELECT b.channel, b.checkpoint_seq, b.version, b.encoding, b.base_checkpoint_seq, b.value_json, b.value_hash
         FROM chain c CROSS JOIN state_checkpoint_blobs b
        WHERE b.thread_id = ? AND b.checkpoint_ns = ? AND b.checkpoint_seq = c.base_checkpoint_seq AND b.channel = c.channel
     )
     SELECT channel, checkpoint_seq, version, encoding, base_checkpoint_seq, value_json, value_hash FROM chain`,
    params,
  );
  return rows.map(toStoredBlob);
}

/** The blobs of the given (channel, seq) pairs themselves, without their chains. */
export async function readBlobsAt(
  db: SqlRunner,
  place: Place,
  wanted: ReadonlyArray<readonly [channel: string, seq: number]>,
): Promise<StoredBlob[]> {
  if (wanted.length === 0) return [];
  const params: unknown[] = [place.threadId, place.checkpointNs];
  for (const [channel, seq] of wanted) params.push(channel, seq);
  const rows = await db.all<RawBlob>(
    `SELECT channel, checkpoint_seq, version, encoding, base_checkpoint_seq, value_json, value_hash
       FROM state_checkpoint_blobs
      WHERE thread_id = ? AND checkpoint_ns = ? AND (${wanted.map(() => "(channel = ? AND checkpoint_seq = ?)").join(" OR ")})`,
    params,
  );
  return rows.map(toStoredBlob);
}

function toStoredBlob(raw: RawBlob): StoredBlob {
  return {
    channel: raw.channel,
    seq: toInt(raw.checkpoint_seq),
    version: raw.version,
    encoding: raw.encoding,
    baseSeq: toIntOrNull(raw.base_checkpoint_seq),
    valueJson: raw.value_json,
    valueHash: raw.value_hash,
  };
}

interface RawWriteOrChild {
  task_id: string | null;
  idx: number | string | null;
  channel: string | null;
  value_json: string | null;
  value_hash: string | null;
  child: RawCheckpoint["id"] | null;
  parent_checkpoint_id: string | null;
  checkpoint_json: string | null;
  channel_seqs_json: string | null;
  metadata_json: string | null;
  step: number | string | null;
  source: string | null;
}

/**
 * The writes saved against a checkpoint and, when `withChildren`, the rows of its children (which
 * may carry more of its writes), in one query. A child always has a greater id than its parent
 * (UUIDv7), so the children are found by a range scan of the checkpoints' key after it.
 */
export async function readWritesAndChildren(
  db: SqlRunner,
  place: Place,
  checkpointId: string,
  withChildren: boolean,
): Promise<{ writes: WriteRow[]; children: CheckpointRow[] }> {
  const writesSql =
    "SELECT task_id, idx, channel, value_json, value_hash, NULL AS child, NULL AS parent_checkpoint_id, NULL AS checkpoint_json, NULL AS channel_seqs_json, NULL AS metadata_json, NULL AS step, NULL AS source " +
    "FROM state_checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?";
  const params: unknown[] = [place.threadId, place.checkpointNs, checkpointId];
  let sql = writesSql;
  if (withChildren) {
    sql +=
      " UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, id, parent_checkpoint_id, checkpoint_json, channel_seqs_json, metadata_json, step, source " +
      "FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND id > ? AND parent_checkpoint_id = ?";
    params.push(place.threadId, place.checkpointNs, checkpointId, checkpointId);
  }
  const rows = await db.all<RawWriteOrChild>(sql, params);
  const writes: WriteRow[] = [];
  const children: CheckpointRow[] = [];
  for (const raw of rows) {
    if (raw.child !== null) {
      children.push({
        ...place,
        id: raw.child,
        seq: 0,
        parentId: raw.parent_checkpoint_id,
        formatVersion: 0,
        step: toInt(raw.step ?? 0),
        source: raw.source ?? "loop",
        checkpointJson: raw.checkpoint_json ?? "",
        channelSeqsJson: raw.channel_seqs_json ?? "",
        metadataJson: raw.metadata_json ?? "",
        createdAt: 0,
      });
      continue;
    }
    writes.push({
      ...place,
      checkpointId,
      taskId: raw.task_id ?? "",
      idx: toInt(raw.idx),
      taskPath: "",
      channel: raw.channel ?? "",
      valueJson: raw.value_json,
      valueHash: raw.value_hash ?? "",
    });
  }
  return { writes, children };
}

interface RawThread {
  id: string;
  latest_checkpoint_id: string | null;
  checkpoint_count?: number | string;
  lease_owner: string | null;
  lease_expires_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

// The latest checkpoint comes from state_checkpoints' key (one seek per thread; on SQLite its
// unique index, which holds the id), so a step never has to rewrite the thread row.
const LATEST_CHECKPOINT =
  "(SELECT c.id FROM state_checkpoints c WHERE c.thread_id = t.id AND c.checkpoint_ns = '' ORDER BY c.id DESC LIMIT 1) AS latest_checkpoint_id";
const THREAD_COLUMNS = `t.id, t.lease_owner, t.lease_expires_at, t.created_at, t.updated_at, ${LATEST_CHECKPOINT}`;

function toThread(raw: RawThread): ThreadSummary {
  return {
    threadId: raw.id,
    latestCheckpointId: raw.latest_checkpoint_id,
    checkpointCount: raw.checkpoint_count === undefined ? null : toInt(raw.checkpoint_count),
    leaseOwner: raw.lease_owner,
    leaseExpiresAt: toIntOrNull(raw.lease_expires_at),
    createdAt: toInt(raw.created_at),
    updatedAt: toInt(raw.updated_at),
  };
}

/** One thread with its checkpoint count (a range scan of that thread's checkpoints), or undefined. */
export async function readThread(
  db: SqlRunner,
  threadId: string,
): Promise<ThreadSummary | undefined> {
  const rows = await db.all<RawThread>(
    `SELECT ${THREAD_COLUMNS}, (SELECT COUNT(*) FROM state_checkpoints c WHERE c.thread_id = t.id) AS checkpoint_count FROM state_threads t WHERE t.id = ?`,
    [threadId],
  );
  return rows[0] ? toThread(rows[0]) : undefined;
}

/**
 * The statement `listThreads` runs (exported for the plan test). Index-only: every column it
 * reads from `state_threads` is in ix_state_threads_updated_at_id_covering (migration 026), so
 * the page is a walk of that index from the cursor, never a read of the table; each thread's
 * latest checkpoint is one seek of the checkpoints' key. Nothing counts checkpoints: a page costs
 * the same with 10 or 100,000 checkpoints a thread.
 */
export function listThreadsSql(limit: number, after: boolean): string {
  const where = after ? " WHERE (t.updated_at, t.id) < (?, ?)" : "";
  return (
    `SELECT ${THREAD_COLUMNS} FROM state_threads t${where} ` +
    `ORDER BY t.updated_at DESC, t.id DESC LIMIT ${Math.max(0, Math.floor(limit))}`
  );
}

/**
 * A page of threads, most recently updated first, without checkpoint counts (`readThread` has
 * them); pass the last row's cursor for the next page.
 */
export async function listThreads(
  db: SqlRunner,
  query: { limit: number; after?: { updatedAt: number; threadId: string } },
): Promise<ThreadSummary[]> {
  const rows = query.after
    ? await db.all<RawThread>(listThreadsSql(query.limit, true), [
        query.after.updatedAt,
        query.after.threadId,
      ])
    : await db.all<RawThread>(listThreadsSql(query.limit, false), []);
  return rows.map(toThread);
}

/** Deletes a thread and, through the foreign keys' cascade, its checkpoints, values and writes. */
export async function deleteThreadRows(db: SqlRunner, threadId: string): Promise<boolean> {
  return (await db.run("DELETE FROM state_threads WHERE id = ?", [threadId])) > 0;
}
