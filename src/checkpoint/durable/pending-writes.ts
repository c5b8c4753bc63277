import { KeelError } from "../../core/index.js";
import type { CheckpointPendingWrite, Serializer } from "../base/index.js";
import { type StoredBlob, valueHashOf } from "./blob-codec.js";
import { readBlobsAt, readWritesAndChildren } from "./queries.js";
import type { CheckpointRow, Place, WriteRow } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import { corruptRow, fillBlobWrites, type ParsedRow, parseRow } from "./value-map.js";

/**
 * The pending writes of a checkpoint: the rows of `state_checkpoint_writes` saved against it, and
 * the writes folded into the rows of its children (committed with them; see `value-map.ts`).
 * `children` is given when the caller already holds every child row (a full history listing);
 * otherwise both are read in one query.
 */
export async function readPendingWrites(
  db: SqlRunner,
  serde: Serializer,
  place: Place,
  checkpointId: string,
  children?: readonly CheckpointRow[],
  parsedChildren?: readonly ParsedRow[],
): Promise<CheckpointPendingWrite[]> {
  const read = await readWritesAndChildren(db, place, checkpointId, children === undefined);
  const rows = children ?? read.children;
  let parsed = parsedChildren;
  if (parsed === undefined) {
    parsed = rows.map((child) => parseRow(child));
    await fillRowsBlobWrites(db, place, rows, parsed);
  }
  return mergeWrites(serde, read.writes, rows, parsed);
}

/** The (channel, seq) of every blob the writes of `parsed` rows take their text from. */
export function blobWritePairs(parsed: readonly ParsedRow[]): Array<[string, number]> {
  const pairs: Array<[string, number]> = [];
  for (const { blobWrites } of parsed)
    for (const { channel, seq } of blobWrites ?? []) pairs.push([channel, seq]);
  return pairs;
}

/**
 * Gives the writes of layout-5 rows stored as their row's blob (`BlobWrite`) the text of that
 * blob, read in one query and checked against its hash.
 */
export async function fillRowsBlobWrites(
  db: SqlRunner,
  place: Place,
  rows: readonly CheckpointRow[],
  parsed: readonly ParsedRow[],
): Promise<void> {
  const wanted = blobWritePairs(parsed);
  if (wanted.length > 0) fillFromBlobs(rows, parsed, await readBlobsAt(db, place, wanted));
}

/**
 * `fillRowsBlobWrites` from blobs already read (a history listing reads its children's blobs with
 * the checkpoint's own values, in one query).
 */
export function fillFromBlobs(
  rows: readonly CheckpointRow[],
  parsed: readonly ParsedRow[],
  blobs: readonly StoredBlob[],
): void {
  const texts = new Map<string, string | null>();
  for (const blob of blobs)
    texts.set(
      `${blob.channel}\u0000${blob.seq}`,
      valueHashOf(blob.valueJson) === blob.valueHash ? blob.valueJson : null,
    );
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as CheckpointRow;
    const blobWrites = parsed[i]?.blobWrites;
    if (blobWrites === undefined) continue;
    for (const { channel, seq } of blobWrites) {
      if (texts.get(`${channel}\u0000${seq}`) === null)
        throw corruptRow(
          row,
          `pending write of channel "${channel}"`,
          new Error("its content does not match its hash"),
        );
    }
    fillBlobWrites(row, blobWrites, (channel, seq) => texts.get(`${channel}\u0000${seq}`));
  }
}

type Keyed = { taskId: string; idx: number; channel: string; value: unknown };

function mergeWrites(
  serde: Serializer,
  rows: readonly WriteRow[],
  children: readonly CheckpointRow[],
  parsed: readonly ParsedRow[],
): CheckpointPendingWrite[] {
  if (rows.length === 0 && children.length === 0) return [];
  const byKey = new Map<string, Keyed>();
  for (const row of rows) {
    byKey.set(`${row.taskId}\u0000${row.idx}`, {
      taskId: row.taskId,
      idx: row.idx,
      channel: row.channel,
      value: decodeWrite(serde, row),
    });
  }
  for (let i = 0; i < children.length; i++) {
    const child = children[i] as CheckpointRow;
    const inline = parsed[i]?.map.w;
    if (!inline) continue;
    for (const [taskId, idx, channel, text] of inline) {
      const key = `${taskId}\u0000${idx}`;
      // An ordinary write saved twice keeps the first; a special write replaces.
      if (idx >= 0 && byKey.has(key)) continue;
      byKey.set(key, { taskId, idx, channel, value: loadWrite(serde, child, taskId, text) });
    }
  }
  return [...byKey.values()]
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx))
    .map((w) => [w.taskId, w.channel, w.value]);
}

function decodeWrite(serde: Serializer, write: WriteRow): unknown {
  if (valueHashOf(write.valueJson) !== write.valueHash) {
    throw corruptWrite(write.threadId, write.checkpointId, write.taskId);
  }
  return serde.loads(write.valueJson ?? "null");
}

function loadWrite(
  serde: Serializer,
  child: CheckpointRow,
  taskId: string,
  text: string | null,
): unknown {
  try {
    return serde.loads(text ?? "null");
  } catch (cause) {
    if (cause instanceof KeelError) throw cause;
    throw corruptWrite(child.threadId, child.parentId ?? "", taskId, cause);
  }
}

function corruptWrite(
  threadId: string,
  checkpointId: string,
  taskId: string,
  cause?: unknown,
): KeelError {
  return new KeelError(
    "CHECKPOINT_CORRUPT",
    `Checkpoint ${checkpointId} of thread "${threadId}" has a corrupted pending write of task ${taskId} (${cause === undefined ? "its content does not match its hash" : "it is not valid JSON"}).`,
    {
      cause,
      details: { threadId, checkpointId, taskId },
      hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
    },
  );
}
