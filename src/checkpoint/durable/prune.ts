import { KeelError, toKeelError } from "../../core/index.js";
import type { Serializer } from "../base/index.js";
import { type CheckpointRow, toInt, toIntOrNull } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import { readRowFormat } from "./tuple-decoder.js";
import type { ValueMap } from "./value-map.js";

/** Which checkpoints of a thread to delete. At least one option is required. */
export interface PruneOptions {
  /** Keep this many newest checkpoints per namespace (at least 1). */
  keepLast?: number;
  /** Delete checkpoints created before this instant (Unix ms). */
  olderThan?: number;
}

/** What a prune deleted. */
export interface PruneResult {
  threadId: string;
  checkpointsDeleted: number;
  writesDeleted: number;
  blobsDeleted: number;
}

/**
 * Prunes one thread. Every statement is atomic on its own and the order makes a crash at any
 * point harmless: checkpoints (and their writes) go first, then the values no remaining
 * checkpoint can reach (directly or as the base of an append) — a crash in between leaves only
 * unreachable values, which the next prune removes. The newest checkpoint of each namespace, and
 * the tip of every branch, are never deleted, so the thread keeps its latest state and every
 * branch can resume.
 *
 * A thread with a row this Keel cannot read (written in a newer format, or corrupted) is not
 * pruned at all: what such a row needs is unknown, so nothing is deleted (CHECKPOINT_FORMAT or
 * CHECKPOINT_CORRUPT, naming the row).
 */
export async function pruneThread(
  db: SqlRunner,
  serde: Serializer,
  threadId: string,
  options: PruneOptions,
): Promise<PruneResult> {
  const keepLast = options.keepLast;
  if (keepLast === undefined && options.olderThan === undefined) {
    throw new KeelError("INVALID_ARGUMENT", "Prune needs --keep-last, --older-than, or both.", {
      hint: "Example: keel runs prune <thread> --keep-last 10",
    });
  }
  if (keepLast !== undefined && (!Number.isInteger(keepLast) || keepLast < 1)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `--keep-last must be a whole number of at least 1, not ${keepLast}.`,
    );
  }
  const rows = await db.all<RawPruneRow>(
    `SELECT ${PRUNE_COLUMNS} FROM state_checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, id DESC`,
    [threadId],
  );
  const maps = new Map<RawPruneRow, Partial<ValueMap>>();
  for (const row of rows) {
    const read = readable(serde, threadId, row);
    if (read instanceof KeelError) throw notPruned(threadId, read);
    maps.set(row, read);
  }
  // The tip of every branch is kept: a writer continues from its own latest checkpoint, which is
  // a tip even when a fork made another branch newer.
  const parents = new Set(
    rows.map((row) => `${row.checkpoint_ns}\u0000${row.parent_checkpoint_id}`),
  );
  const doomed: Array<{ ns: string; id: string; inlineWrites: number }> = [];
  let rank = 0;
  let currentNs: string | undefined;
  for (const row of rows) {
    rank = row.checkpoint_ns === currentNs ? rank + 1 : 0;
    currentNs = row.checkpoint_ns;
    if (rank === 0 || !parents.has(`${row.checkpoint_ns}\u0000${row.id}`)) continue;
    const beyondKeep = keepLast === undefined || rank >= keepLast;
    const oldEnough = options.olderThan === undefined || toInt(row.created_at) < options.olderThan;
    if (beyondKeep && oldEnough)
      doomed.push({
        ns: row.checkpoint_ns,
        id: row.id,
        inlineWrites: maps.get(row)?.w?.length ?? 0,
      });
  }
  let checkpointsDeleted = 0;
  let writesDeleted = 0;
  for (const { ns, id, inlineWrites } of doomed) {
    // A row carries some of its parent's writes (see value-map.ts): they go with it.
    writesDeleted += inlineWrites;
    writesDeleted += await db.run(
      "DELETE FROM state_checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
      [threadId, ns, id],
    );
    checkpointsDeleted += await db.run(
      "DELETE FROM state_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND id = ?",
      [threadId, ns, id],
    );
  }
  const blobsDeleted = await collectUnreachableBlobs(db, serde, threadId);
  return { threadId, checkpointsDeleted, writesDeleted, blobsDeleted };
}

/** Every column the row hash covers (layout 4), so prune verifies a row as a read does. */
const PRUNE_COLUMNS =
  "checkpoint_ns, id, parent_checkpoint_id, step, source, created_at, format_version, checkpoint_json, channel_seqs_json, metadata_json";

interface RawPruneRow {
  checkpoint_ns: string;
  id: string;
  created_at: number | string;
  format_version: number | string;
  parent_checkpoint_id: string | null;
  step: number | string;
  source: string;
  checkpoint_json: string;
  channel_seqs_json: string;
  metadata_json: string;
}

/** A row's value map, or the error that says why this Keel cannot read the row. */
function readable(
  serde: Serializer,
  threadId: string,
  raw: RawPruneRow,
): Partial<ValueMap> | KeelError {
  const row: CheckpointRow = {
    threadId,
    checkpointNs: raw.checkpoint_ns,
    id: raw.id,
    seq: 0,
    parentId: raw.parent_checkpoint_id,
    formatVersion: toInt(raw.format_version),
    step: toInt(raw.step),
    source: raw.source,
    checkpointJson: raw.checkpoint_json,
    channelSeqsJson: raw.channel_seqs_json,
    metadataJson: raw.metadata_json,
    createdAt: toInt(raw.created_at),
  };
  try {
    return readRowFormat(serde, row).map;
  } catch (error) {
    return toKeelError(error);
  }
}

function notPruned(threadId: string, cause: KeelError): KeelError {
  // The cause's message without its hint (KeelError appends the hint): a hint of its own follows.
  const what = cause.hint ? cause.message.slice(0, -cause.hint.length - 1) : cause.message;
  return new KeelError(cause.code, `Thread "${threadId}" was not pruned: ${what}`, {
    cause,
    details: { ...cause.details, threadId },
    // The cause's own hint says what to do (upgrade Keel, delete a thread of an old development
    // layout, restore a backup); only "nothing was deleted" is added.
    hint: `Nothing was deleted. ${cause.hint ?? ""}`.trim(),
  });
}

/** Deletes the values of a thread that no remaining checkpoint reaches. */
async function collectUnreachableBlobs(
  db: SqlRunner,
  serde: Serializer,
  threadId: string,
): Promise<number> {
  // Values first, then checkpoints: a value is committed with the checkpoint that stores it, so
  // every value read here has its checkpoint in the second read, even under a concurrent writer.
  const blobs = await db.all<{
    checkpoint_ns: string;
    channel: string;
    checkpoint_seq: number | string;
    base_checkpoint_seq: number | string | null;
  }>(
    "SELECT checkpoint_ns, channel, checkpoint_seq, base_checkpoint_seq FROM state_checkpoint_blobs WHERE thread_id = ?",
    [threadId],
  );
  const checkpoints = await db.all<RawPruneRow>(
    `SELECT ${PRUNE_COLUMNS} FROM state_checkpoints WHERE thread_id = ?`,
    [threadId],
  );
  const key = (ns: string, channel: string, seq: number) => `${ns}\u0000${channel}\u0000${seq}`;
  const baseOf = new Map<string, string | undefined>();
  for (const blob of blobs) {
    const base = toIntOrNull(blob.base_checkpoint_seq);
    baseOf.set(
      key(blob.checkpoint_ns, blob.channel, toInt(blob.checkpoint_seq)),
      base === null ? undefined : key(blob.checkpoint_ns, blob.channel, base),
    );
  }
  const live = new Set<string>();
  for (const checkpoint of checkpoints) {
    // A row this Keel cannot read (one a newer writer committed since the first read, say)
    // might need any value: delete none.
    const map = readable(serde, threadId, checkpoint);
    if (map instanceof KeelError) return 0;
    const entries = map.c ?? {};
    for (const [channel, entry] of Object.entries(entries)) {
      const seq = Array.isArray(entry) ? entry[1] : undefined;
      if (typeof seq !== "number" || seq <= 0) continue;
      let current: string | undefined = key(checkpoint.checkpoint_ns, channel, seq);
      while (current !== undefined && !live.has(current)) {
        live.add(current);
        current = baseOf.get(current);
      }
    }
  }
  let deleted = 0;
  for (const blob of blobs) {
    const seq = toInt(blob.checkpoint_seq);
    if (live.has(key(blob.checkpoint_ns, blob.channel, seq))) continue;
    deleted += await db.run(
      "DELETE FROM state_checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND checkpoint_seq = ?",
      [threadId, blob.checkpoint_ns, blob.channel, seq],
    );
  }
  return deleted;
}
