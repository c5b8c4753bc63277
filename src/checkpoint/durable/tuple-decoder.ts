import { KeelError } from "../../core/index.js";
import type { Checkpoint, CheckpointMetadata, CheckpointTuple, Serializer } from "../base/index.js";
import { decodeBlob, type LastWritten, rememberValue, type StoredBlob } from "./blob-codec.js";
import { expandMetadata } from "./compact-row.js";
import { blobWritePairs, fillFromBlobs, readPendingWrites } from "./pending-writes.js";
import { readBlobs } from "./queries.js";
import type { CheckpointRow, Place } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import {
  corruptRow,
  fillBlobWrites,
  type MapEntry,
  type ParsedRow,
  parseRow,
  type RowHead,
  type ValueMap,
} from "./value-map.js";

/** A tuple read back, with what a saver caches to write the next step without reading. */
export interface DecodedRow {
  tuple: CheckpointTuple;
  entries: Map<string, string>;
  lastWritten: Map<string, LastWritten>;
}

/**
 * Reads a checkpoint row into a tuple: inline values from the row, the others from their blobs
 * (one recursive query follows delta chains), and its pending writes. `children` as in
 * `readPendingWrites`.
 */
export async function decodeRow(
  db: SqlRunner,
  serde: Serializer,
  row: CheckpointRow,
  children?: readonly CheckpointRow[],
): Promise<DecodedRow> {
  try {
    return await decodeRowUnplaced(db, serde, row, children);
  } catch (error) {
    throw placed(error, row);
  }
}

/**
 * A format or corruption error raised below the row (a value's serde tag, a blob, a write) names
 * the thread and the checkpoint being read, so the user knows which one to restore or fork from.
 */
function placed(error: unknown, row: CheckpointRow): unknown {
  if (
    !(error instanceof KeelError) ||
    (error.code !== "CHECKPOINT_FORMAT" && error.code !== "CHECKPOINT_CORRUPT") ||
    (error.details.threadId !== undefined && error.details.checkpointId !== undefined)
  )
    return error;
  const what = error.hint ? error.message.slice(0, -error.hint.length - 1) : error.message;
  return new KeelError(
    error.code,
    `Checkpoint ${row.id} of thread "${row.threadId}" cannot be read: ${what}`,
    {
      cause: error,
      details: { ...error.details, threadId: row.threadId, checkpointId: row.id },
      ...(error.hint ? { hint: error.hint } : {}),
    },
  );
}

async function decodeRowUnplaced(
  db: SqlRunner,
  serde: Serializer,
  row: CheckpointRow,
  children?: readonly CheckpointRow[],
): Promise<DecodedRow> {
  const { head, map, blobWrites } = readRowFormat(serde, row);
  const place: Place = { threadId: row.threadId, checkpointNs: row.checkpointNs };
  const values: Record<string, unknown> = {};
  const versions: Record<string, number> = {};
  const entries = new Map<string, string>();
  const wanted: Array<[string, number]> = [];
  for (const channel in map.c) {
    const entry = map.c[channel] as MapEntry;
    if (!Array.isArray(entry)) throw corruptRow(row, `entry of channel "${channel}"`, undefined);
    entries.set(channel, JSON.stringify(entry));
    if (entry[0] !== null && entry[0] !== undefined) versions[channel] = entry[0] as number;
    const seq = entry[1];
    if (seq === undefined) continue;
    if (seq > 0) {
      wanted.push([channel, seq]);
      continue;
    }
    values[channel] = loadInline(serde, row, channel, entry[2]);
  }
  const lastWritten = new Map<string, LastWritten>();
  // Children given (a history listing): the blobs their writes take their text from are read
  // with this row's values, in the same query, not one query more per row.
  const parsedChildren = children?.map((child) => parseRow(child));
  const childPairs = parsedChildren ? blobWritePairs(parsedChildren) : [];
  if (wanted.length > 0 || childPairs.length > 0) {
    const blobs = await readBlobs(
      db,
      place,
      childPairs.length > 0 ? [...wanted, ...childPairs] : wanted,
    );
    if (parsedChildren && childPairs.length > 0 && children)
      fillFromBlobs(children, parsedChildren, blobs);
    const bySeqOf = groupBlobs(blobs);
    for (const [channel, seq] of wanted) {
      const bySeq = bySeqOf.get(channel);
      const blob = bySeq?.get(seq);
      if (!bySeq || !blob) throw missingValue(row, channel);
      const value = decodeBlob(serde, place, blob, bySeq);
      if (value !== undefined) values[channel] = value;
      const remembered = rememberOf(serde, value, blob, bySeq);
      if (remembered) lastWritten.set(channel, remembered);
    }
    // The row's own blobs (checked by decodeBlob above) hold the text of its blob writes.
    if (blobWrites !== undefined)
      fillBlobWrites(row, blobWrites, (channel, seq) => bySeqOf.get(channel)?.get(seq)?.valueJson);
  } else if (blobWrites !== undefined) {
    fillBlobWrites(row, blobWrites, () => undefined);
  }
  const pendingWrites = await readPendingWrites(db, serde, place, row.id, children, parsedChildren);
  const configurable = {
    thread_id: row.threadId,
    checkpoint_ns: row.checkpointNs,
    checkpoint_id: row.id,
  };
  const checkpoint: Checkpoint = {
    v: head.v,
    id: row.id,
    ts: head.ts,
    channel_values: values,
    channel_versions: versions,
    versions_seen: map.s ?? {},
  };
  const tuple: CheckpointTuple = {
    config: { configurable },
    checkpoint,
    metadata: rowMetadata(serde, row, head, map),
    pendingWrites,
  };
  if (row.parentId) {
    tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: row.parentId } };
  }
  return { tuple, entries, lastWritten };
}

/**
 * A row's head and value map once every format it was written in is one this Keel reads (serde
 * format, row layout, checkpoint format) and its map matches its hash; CHECKPOINT_FORMAT or
 * CHECKPOINT_CORRUPT otherwise. Whatever reads or rewrites a thread from its rows checks this first.
 */
export function readRowFormat(serde: Serializer, row: CheckpointRow): ParsedRow {
  if (row.formatVersion > serde.format) {
    throw new KeelError(
      "CHECKPOINT_FORMAT",
      `Checkpoint ${row.id} of thread "${row.threadId}" holds values written in serde format ${row.formatVersion}; this Keel reads up to ${serde.format}.`,
      {
        details: {
          threadId: row.threadId,
          checkpointId: row.id,
          format: row.formatVersion,
          supported: serde.format,
        },
        hint: "Upgrade Keel to read this thread.",
      },
    );
  }
  // parseRow refuses a newer row layout or checkpoint format, naming the row.
  return parseRow(row);
}

function loadInline(
  serde: Serializer,
  row: CheckpointRow,
  channel: string,
  text: unknown,
): unknown {
  if (typeof text !== "string") throw corruptRow(row, `value of channel "${channel}"`, undefined);
  try {
    return serde.loads(text);
  } catch (cause) {
    if (cause instanceof KeelError) throw cause;
    throw corruptRow(row, `value of channel "${channel}"`, cause);
  }
}

/** A row's metadata: stored whole, or rebuilt from its columns and writes (layout 3). */
export function rowMetadata(
  serde: Serializer,
  row: CheckpointRow,
  head: RowHead,
  map: ValueMap,
): CheckpointMetadata {
  try {
    if (head.compactMetadata) return expandMetadata(serde, row, map.w ?? []);
    return serde.loads(row.metadataJson) as CheckpointMetadata;
  } catch (cause) {
    if (cause instanceof KeelError) throw cause;
    throw corruptRow(row, "metadata", cause);
  }
}

function groupBlobs(blobs: readonly StoredBlob[]): Map<string, Map<number, StoredBlob>> {
  const byChannel = new Map<string, Map<number, StoredBlob>>();
  for (const blob of blobs) {
    let bySeq = byChannel.get(blob.channel);
    if (!bySeq) {
      bySeq = new Map();
      byChannel.set(blob.channel, bySeq);
    }
    bySeq.set(blob.seq, blob);
  }
  return byChannel;
}

/** The delta base a later `put` may extend: lists and records only. */
function rememberOf(
  serde: Serializer,
  value: unknown,
  blob: StoredBlob,
  bySeq: ReadonlyMap<number, StoredBlob>,
): LastWritten | undefined {
  const chainCount = chainCountOf(blob, bySeq);
  const fullLength = Array.isArray(value) ? value.length - appendedSinceFull(blob, bySeq) : 0;
  return rememberValue(serde, blob.seq, value, fullLength, chainCount);
}

function chainCountOf(blob: StoredBlob, bySeq: ReadonlyMap<number, StoredBlob>): number {
  let count = 0;
  let current: StoredBlob | undefined = blob;
  while (current && current.encoding !== "full" && current.baseSeq !== null) {
    count++;
    current = bySeq.get(current.baseSeq);
  }
  return count;
}

/** Items appended since the full copy an append chain starts from (0 for a full blob). */
function appendedSinceFull(blob: StoredBlob, bySeq: ReadonlyMap<number, StoredBlob>): number {
  let appended = 0;
  let current: StoredBlob | undefined = blob;
  while (current && current.encoding === "append" && current.baseSeq !== null) {
    // The hash was checked when the value was decoded, so the text parses.
    appended += (JSON.parse(current.valueJson ?? "[]") as unknown[]).length;
    current = bySeq.get(current.baseSeq);
  }
  return appended;
}

function missingValue(row: CheckpointRow, channel: string): KeelError {
  return new KeelError(
    "CHECKPOINT_CORRUPT",
    `Checkpoint ${row.id} of thread "${row.threadId}" needs a stored value (${channel}) that is missing.`,
    {
      details: { threadId: row.threadId, checkpointId: row.id, channel },
      hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
    },
  );
}
