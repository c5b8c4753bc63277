import type { NewCheckpointRow, PlacedBlobRow, WriteRow } from "./rows.js";

/**
 * The statements of a commit, shared by both dialects (SQLite and Postgres both read
 * `excluded`, `ON CONFLICT … DO UPDATE … WHERE` and `RETURNING`).
 */

/**
 * Creates or touches the thread row; the `WHERE` refuses a thread whose lease belongs to another
 * owner that has not expired, in which case no row is returned and nothing of the thread is
 * written. Parameters: id, now, now, owner, now.
 */
export const UPSERT_THREAD = `INSERT INTO state_threads (id, created_at, updated_at)
VALUES (?, ?, ?)
ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at
WHERE state_threads.lease_owner IS NULL OR state_threads.lease_owner = ? OR state_threads.lease_expires_at < ?
RETURNING id`;

/**
 * The same lease check without writing the thread row (SQLite, for a thread this writer touched
 * less than a second ago: the commit is already serialised by `BEGIN IMMEDIATE`).
 * Parameters: id, owner, now.
 */
export const CHECK_THREAD_LEASE = `SELECT id FROM state_threads
WHERE id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)`;

/** How long a writer goes without refreshing a thread's `updated_at` (ms). */
export const THREAD_TOUCH_INTERVAL_MS = 1000;

/** Saving an ordinary write that exists is a no-op; a special write (negative index) replaces. */
export const WRITE_CONFLICT = `ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
  channel = excluded.channel, value_json = excluded.value_json, value_hash = excluded.value_hash
WHERE excluded.idx < 0`;

// The *Values functions give a row's values in its column list's order, after thread_id (which
// Postgres's one-statement commit binds once per thread). Keep each beside its column list; the
// order is held by the push* functions, which the *Values functions call.

export const WRITE_COLUMNS =
  "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, task_path, channel, value_json, value_hash";

export const BLOB_COLUMNS =
  "thread_id, checkpoint_ns, channel, checkpoint_seq, version, encoding, base_checkpoint_seq, chain_count, value_json, value_hash";

export const CHECKPOINT_COLUMNS =
  "thread_id, checkpoint_ns, id, seq, parent_checkpoint_id, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at, is_below_latest";

/** A write row's values after `thread_id`, in `WRITE_COLUMNS` order. */
export function writeValues(w: WriteRow): unknown[] {
  const out: unknown[] = [];
  pushWriteValues(out, w);
  return out;
}

/** A blob row's values after `thread_id`, in `BLOB_COLUMNS` order. */
export function blobValues(b: PlacedBlobRow): unknown[] {
  const out: unknown[] = [];
  pushBlobValues(out, b);
  return out;
}

/** A checkpoint row's values after `thread_id`, in `CHECKPOINT_COLUMNS` order. */
export function checkpointValues(c: NewCheckpointRow): unknown[] {
  const out: unknown[] = [];
  pushCheckpointValues(out, c);
  return out;
}

/** A write row's values appended to `out` (Postgres's shaped statement fills one array a step). */
export function pushWriteValues(out: unknown[], w: WriteRow): void {
  out.push(
    w.checkpointNs,
    w.checkpointId,
    w.taskId,
    w.idx,
    w.taskPath,
    w.channel,
    w.valueJson,
    w.valueHash,
  );
}

/** A blob row's values appended to `out`. */
export function pushBlobValues(out: unknown[], b: PlacedBlobRow): void {
  out.push(
    b.checkpointNs,
    b.channel,
    b.seq,
    b.version,
    b.encoding,
    b.baseSeq,
    b.chainCount,
    b.valueJson,
    b.valueHash,
  );
}

/** A checkpoint row's values appended to `out`. */
export function pushCheckpointValues(out: unknown[], c: NewCheckpointRow): void {
  out.push(
    c.checkpointNs,
    c.id,
    c.seq,
    c.parentId,
    c.formatVersion,
    c.step,
    c.source,
    c.checkpointJson,
    c.channelSeqsJson,
    c.metadataJson,
    c.createdAt,
    c.belowLatest,
  );
}
