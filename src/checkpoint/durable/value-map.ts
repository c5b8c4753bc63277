/**
 * The layout of a `state_checkpoints` row: most of a step lives in the row itself, so a chain
 * step commits one row instead of one per channel, version map and write.
 *
 * - `checkpoint_json`: `{"v", "ts", "l": ROW_LAYOUT, "m": 1 when the metadata is compact, "h": hash
 *   of channel_seqs_json}`; `ts` is left out when the checkpoint id carries it (`compact-row.ts`).
 * - `channel_seqs_json`: `{"c": {channel: entry}, "s": versions_seen, "w": [write, …]}` where an
 *   entry is `[version, 0, valueText]` (a small value, inline), `[version, seq]` (a value stored in
 *   `state_checkpoint_blobs` by the checkpoint `seq`, possibly as a delta), or `[version]` (a
 *   version without a value). `channel_versions` is rebuilt from the entries.
 * - `w` holds the pending writes of the *parent* checkpoint that were committed in the same
 *   transaction as this row (the common case: a task's writes and the checkpoint of its step).
 *   Writes committed on their own (a parallel task that finished early, an interrupt) stay in
 *   `state_checkpoint_writes`. A checkpoint's pending writes are the union of both. A write
 *   `[task, idx, channel]` without a value wrote the text the row stores for `channel`: its
 *   inline entry's, or (layout 5) the `value_json` of the blob the row itself stores for it (the
 *   message a tools task appended is the `append` blob of that step: stored once, not twice).
 * - Layout 3 writes each value once (see `compact-row.ts`); rows of layout 2 read as before.
 */
import { KeelError } from "../../core/index.js";
import {
  CHECKPOINT_FORMAT_VERSION,
  type ChannelVersions,
  type CheckpointMetadata,
  jsonNumber,
  jsonOf,
  jsonString,
  keyJson,
  type Serializer,
} from "../base/index.js";
import { valueHashOf } from "./blob-codec.js";
import { compactMetadata, isoOfId, tsOfIdIs } from "./compact-row.js";
import type {
  CheckpointRow,
  NewCheckpointRow,
  PlacedBlobRow,
  ThreadBatch,
  WriteRow,
} from "./rows.js";

/**
 * The row layout this code writes and reads. Layout 4 is layout 3 with a row hash `h` that
 * covers the metadata and the step, source and parent columns as well as the value map (an
 * edited metadata could otherwise drop a node's update unnoticed); rows of layouts 2 and 3
 * hashed the map only and are verified that way. Layout 5 also stores without its value a write
 * whose text is the blob the row stores for its channel (`BLOB_WRITE_LAYOUT`).
 */
export const ROW_LAYOUT = 5;

/** The first layout whose writes may share the text of the row's own blob of their channel. */
const BLOB_WRITE_LAYOUT = 5;

/** The first layout whose hash covers the whole row (`rowHashOf`). */
const WHOLE_ROW_HASH_LAYOUT = 4;

/**
 * The hash of a layout-4 row: its value map, metadata, step, source and parent, separated by
 * NUL (which JSON text never holds raw), so no edit of one part can be moved into another.
 */
export function rowHashOf(
  row: Pick<CheckpointRow, "channelSeqsJson" | "metadataJson" | "step" | "source" | "parentId">,
): string {
  return valueHashOf(
    `${row.channelSeqsJson}\u0000${row.metadataJson}\u0000${row.step}\u0000${row.source}\u0000${row.parentId ?? ""}`,
  );
}

/** Values whose serialised text is at most this long are stored inline in the checkpoint row. */
export const INLINE_MAX = 96;

/** A checkpoint queued for commit, before its parent's writes are folded in (`sealCheckpoint`). */
export interface QueuedCheckpoint
  extends Omit<NewCheckpointRow, "checkpointJson" | "channelSeqsJson" | "metadataJson"> {
  v: number;
  ts: string;
  /** The JSON members of the entry map, without braces: `"a":[1,0,"x"],"b":[2,7]`. */
  entries: string;
  seenJson: string;
  metadata: CheckpointMetadata;
  /** Channel → the text this step stores for it, inline or as its blob (its writes may share it). */
  texts: Map<string, string> | undefined;
}

/** A value inline: `[version, 0, text]`. */
export function inlineEntry(version: unknown, text: string): string {
  return `[${jsonOf(version)},0,${jsonString(text)}]`;
}

/** A value in the blob table, stored by checkpoint `seq`: `[version, seq]`. */
export function blobEntry(version: unknown, seq: number): string {
  return `[${jsonOf(version)},${seq}]`;
}

/** A channel with a version and no value: `[version]`. */
export function versionEntry(version: unknown): string {
  return `[${jsonOf(version)}]`;
}

/** `JSON.stringify(seen)` for `versions_seen` (node → channel → version). */
export function seenJsonOf(seen: Record<string, ChannelVersions> | undefined): string {
  let text = "{";
  for (const node in seen) {
    const versions = seen[node];
    if (versions === undefined) continue;
    if (typeof versions !== "object" || versions === null) return JSON.stringify(seen);
    text += `${text.length === 1 ? "" : ","}${keyJson(node)}:{`;
    let first = true;
    for (const channel in versions) {
      const version = versions[channel];
      if (version === undefined) continue;
      text += `${first ? "" : ","}${keyJson(channel)}:${jsonOf(version)}`;
      first = false;
    }
    text += "}";
  }
  return `${text}}`;
}

/** The final row: the map with the parent's writes that commit with it, and its hash. */
export function sealCheckpoint(
  serde: Serializer,
  queued: QueuedCheckpoint,
  writes: readonly WriteRow[],
): NewCheckpointRow {
  let map = `{"c":{${queued.entries}},"s":${queued.seenJson}`;
  if (writes.length > 0) {
    map += ',"w":[';
    // A task's writes are consecutive: its id's JSON text is made once, not once a write.
    let taskId = "";
    let taskJson = "";
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i]!;
      if (i === 0 || w.taskId !== taskId) {
        taskId = w.taskId;
        taskJson = jsonString(taskId);
      }
      // The value this write gave its channel is in the channel's entry or in the blob this row
      // stores for it: not written again.
      const value =
        w.valueJson === null
          ? ",null"
          : queued.texts?.get(w.channel) === w.valueJson
            ? ""
            : `,${jsonString(w.valueJson)}`;
      map += `${i === 0 ? "" : ","}[${taskJson},${w.idx},${keyJson(w.channel)}${value}]`;
    }
    map += "]";
  }
  map += "}";
  // The map is a chain of dozens of concatenations. Flattened here once (V8's charCodeAt
  // flattens a concatenation in place; the test keeps the optimiser from dropping the call), the
  // row hash copies it whole and the statement binds it as is; unflattened, each walked the
  // chain (callgrind: binding and hash ~8,000 instructions a step less, ~4%).
  if (map.charCodeAt(0) !== 0x7b /* "{" */)
    throw new KeelError("INTERNAL", "A checkpoint's value map did not start with '{'.");
  const compact = compactMetadata(serde, queued.metadata, queued, writes);
  const ts = tsOfIdIs(queued.id, queued.ts) ? "" : `"ts":${jsonOf(queued.ts)},`;
  const metadataJson = compact ?? serde.dumps(queued.metadata);
  const h = rowHashOf({
    channelSeqsJson: map,
    metadataJson,
    step: queued.step,
    source: queued.source,
    parentId: queued.parentId,
  });
  return {
    threadId: queued.threadId,
    checkpointNs: queued.checkpointNs,
    id: queued.id,
    seq: queued.seq,
    parentId: queued.parentId,
    formatVersion: queued.formatVersion,
    step: queued.step,
    source: queued.source,
    checkpointJson: `{"v":${jsonNumber(queued.v)},${ts}"l":${ROW_LAYOUT},${compact === undefined ? "" : '"m":1,'}"h":"${h}"}`,
    channelSeqsJson: map,
    metadataJson,
    createdAt: queued.createdAt,
    belowLatest: queued.belowLatest,
  };
}

/** What a row's `checkpoint_json` holds. */
export interface RowHead {
  v: number;
  ts: string;
  /** True when the metadata is stored compact (`compact-row.ts`). */
  compactMetadata: boolean;
}

/** One entry of the map, as parsed. */
export type MapEntry = [version: unknown, seq?: number, text?: string];

/**
 * A pending write folded into a child row: `[taskId, idx, channel, valueText]` (as `parseRow`
 * returns it; layout 3 stores `[taskId, idx, channel]` when the text is the channel's entry's).
 */
export type InlineWrite = [taskId: string, idx: number, channel: string, valueText: string | null];

/** What a row's `channel_seqs_json` holds. */
export interface ValueMap {
  c: Record<string, MapEntry>;
  s: Record<string, ChannelVersions>;
  w?: InlineWrite[];
}

/**
 * A write of a layout-5 row stored without its value because its text is the blob the row stores
 * for its channel: the reader appends that blob's `value_json` (`fillBlobWrites`).
 */
export interface BlobWrite {
  write: unknown[];
  channel: string;
  seq: number;
}

/** A row's head, its map and the writes that still need their blob's text (layout 5). */
export interface ParsedRow {
  head: RowHead;
  map: ValueMap;
  blobWrites: BlobWrite[] | undefined;
}

/**
 * Parses and checks a row's head and map; CHECKPOINT_FORMAT or CHECKPOINT_CORRUPT on failure.
 * The map's writes hold their text, except `blobWrites` (to fill before the writes are used).
 */
export function parseRow(row: CheckpointRow): ParsedRow {
  const head = parseJson(row, "header", row.checkpointJson) as Partial<{
    v: number;
    ts: string;
    l: number;
    m: number;
    h: string;
  }>;
  if (typeof head.v === "number" && head.v > CHECKPOINT_FORMAT_VERSION) {
    throw writtenByNewer(row, "checkpoint format", "format", head.v, CHECKPOINT_FORMAT_VERSION);
  }
  if (typeof head.v === "number" && head.l === undefined) {
    // Rows of the first development layout (values and version maps in blobs only).
    throw new KeelError(
      "CHECKPOINT_FORMAT",
      `Checkpoint ${row.id} of thread "${row.threadId}" was written in an earlier development layout this Keel does not read.`,
      {
        details: { threadId: row.threadId, checkpointId: row.id },
        hint: "Delete the thread (`keel runs delete`) and run it again.",
      },
    );
  }
  if (typeof head.l === "number" && head.l > ROW_LAYOUT) {
    throw writtenByNewer(row, "row layout", "layout", head.l, ROW_LAYOUT);
  }
  if (typeof head.l === "number" && head.l >= WHOLE_ROW_HASH_LAYOUT) {
    if (head.h !== rowHashOf(row)) {
      throw corruptRow(
        row,
        "row (value map, metadata, step, source or parent)",
        new Error("its content does not match its hash"),
      );
    }
  } else if (head.h !== valueHashOf(row.channelSeqsJson)) {
    throw corruptRow(row, "value map", new Error("its content does not match its hash"));
  }
  const map = parseJson(row, "value map", row.channelSeqsJson) as ValueMap;
  if (typeof map !== "object" || map === null || typeof map.c !== "object" || map.c === null) {
    throw corruptRow(row, "value map", new Error("it has no channel entries"));
  }
  const blobWrites =
    map.w === undefined
      ? undefined
      : shareEntryTexts(row, map, typeof head.l === "number" && head.l >= BLOB_WRITE_LAYOUT);
  const ts = head.ts ?? isoOfId(row.id);
  if (typeof ts !== "string") throw corruptRow(row, "header", new Error("it has no timestamp"));
  return { head: { v: head.v as number, ts, compactMetadata: head.m === 1 }, map, blobWrites };
}

/**
 * Gives each write stored without a value (layout 3) the text of its channel's inline entry;
 * returns those (layout 5) whose text is the row's blob of their channel, still without it.
 */
function shareEntryTexts(
  row: CheckpointRow,
  map: ValueMap,
  blobsAllowed: boolean,
): BlobWrite[] | undefined {
  const writes = map.w;
  if (!Array.isArray(writes)) throw corruptRow(row, "pending writes", undefined);
  let blobWrites: BlobWrite[] | undefined;
  for (const write of writes as unknown[][]) {
    if (!Array.isArray(write)) throw corruptRow(row, "pending writes", undefined);
    if (write.length !== 3) continue;
    const channel = String(write[2]);
    const entry = Object.hasOwn(map.c, channel) ? map.c[channel] : undefined;
    if (Array.isArray(entry) && entry[1] === 0 && typeof entry[2] === "string") {
      write.push(entry[2]);
      continue;
    }
    const seq = Array.isArray(entry) ? entry[1] : undefined;
    if (!blobsAllowed || typeof seq !== "number" || !Number.isInteger(seq) || seq <= 0)
      throw corruptRow(row, `pending write of channel "${channel}"`, undefined);
    blobWrites ??= [];
    blobWrites.push({ write, channel, seq });
  }
  return blobWrites;
}

/**
 * Appends to each of `blobWrites` the text of its blob, as `textOf` gives it (already checked
 * against its hash); CHECKPOINT_CORRUPT naming the channel when the blob is missing.
 */
export function fillBlobWrites(
  row: CheckpointRow,
  blobWrites: readonly BlobWrite[],
  textOf: (channel: string, seq: number) => string | null | undefined,
): void {
  for (const { write, channel, seq } of blobWrites) {
    const text = textOf(channel, seq);
    if (typeof text !== "string")
      throw corruptRow(
        row,
        `pending write of channel "${channel}"`,
        new Error("its value is missing"),
      );
    write.push(text);
  }
}

/** CHECKPOINT_FORMAT for a row written by a newer Keel (a format or layout above this one's). */
function writtenByNewer(
  row: CheckpointRow,
  what: string,
  key: string,
  found: number,
  readable: number,
): KeelError {
  return new KeelError(
    "CHECKPOINT_FORMAT",
    `Checkpoint ${row.id} of thread "${row.threadId}" was written in ${what} ${found}; this Keel reads up to ${readable}.`,
    {
      details: { threadId: row.threadId, checkpointId: row.id, [key]: found },
      hint: "Upgrade Keel to read this thread.",
    },
  );
}

/** Parses JSON text of a row, or CHECKPOINT_CORRUPT naming what is unreadable. */
export function parseJson(row: CheckpointRow, what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw corruptRow(row, what, cause);
  }
}

/** CHECKPOINT_CORRUPT for one part of a checkpoint row. */
export function corruptRow(row: CheckpointRow, what: string, cause: unknown): KeelError {
  return new KeelError(
    "CHECKPOINT_CORRUPT",
    `The ${what} of checkpoint ${row.id} on thread "${row.threadId}" is unreadable.`,
    {
      cause,
      details: { threadId: row.threadId, checkpointId: row.id },
      hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
    },
  );
}

/** What one thread has queued: checkpoints not yet sealed, values, writes. */
export interface QueuedThread {
  threadId: string;
  checkpoints: QueuedCheckpoint[];
  blobs: PlacedBlobRow[];
  writes: WriteRow[];
  /** `ns \0 checkpoint \0 task` of each `putWrites` call queued. */
  tasks: Set<string> | undefined;
  /** True when a write may repeat an earlier one (the same task saved twice, or special writes). */
  repeated: boolean;
}

/**
 * Seals a thread's queued checkpoints for commit: the writes saved against a checkpoint whose
 * child commits in the same transaction go into the child's row; the others go to the writes
 * table. A repeated ordinary write keeps the first; a repeated special write (negative index,
 * which replaces) keeps the last.
 */
export function sealThread(serde: Serializer, queued: QueuedThread): ThreadBatch {
  const writes = queued.repeated ? dedupeWrites(queued.writes) : queued.writes;
  let loose: WriteRow[] = [];
  let checkpoints: NewCheckpointRow[];
  const only = queued.checkpoints.length === 1 ? queued.checkpoints[0] : undefined;
  if (only === undefined && queued.checkpoints.length === 0) {
    checkpoints = [];
    loose = writes;
  } else if (only !== undefined) {
    // The common case (a chain step) without the grouping maps below; when every write is the
    // parent's (a chain step's are), the queued array is the row's as is (no copy).
    let inline = writes;
    for (let i = 0; i < writes.length; i++) {
      const write = writes[i] as WriteRow;
      if (write.checkpointId === only.parentId && write.checkpointNs === only.checkpointNs) {
        if (inline !== writes) inline.push(write);
      } else {
        if (inline === writes) inline = writes.slice(0, i);
        loose.push(write);
      }
    }
    checkpoints = [sealCheckpoint(serde, only, inline)];
  } else {
    checkpoints = [];
    const byParent = new Map<string, WriteRow[]>();
    for (const checkpoint of queued.checkpoints) {
      if (checkpoint.parentId !== null)
        byParent.set(`${checkpoint.checkpointNs}\u0000${checkpoint.parentId}`, []);
    }
    for (const write of writes) {
      const group = byParent.get(`${write.checkpointNs}\u0000${write.checkpointId}`);
      if (group) group.push(write);
      else loose.push(write);
    }
    for (const checkpoint of queued.checkpoints) {
      const key = `${checkpoint.checkpointNs}\u0000${checkpoint.parentId}`;
      const inline = checkpoint.parentId === null ? undefined : byParent.get(key);
      // Only the first child of a parent in this batch carries the parent's writes.
      if (inline) byParent.delete(key);
      checkpoints.push(sealCheckpoint(serde, checkpoint, inline ?? []));
    }
  }
  // Rows of the writes table carry their own hash (folded ones are covered by the row's). The
  // rows belong to the queue, so the hash is set in place.
  for (const write of loose) write.valueHash = valueHashOf(write.valueJson);
  return { threadId: queued.threadId, checkpoints, blobs: queued.blobs, writes: loose };
}

/** Keeps the first ordinary write of a key (a repeated save is a no-op) and the last special one. */
export function dedupeWrites(writes: readonly WriteRow[]): WriteRow[] {
  if (writes.length < 2) return writes.slice();
  const byKey = new Map<string, WriteRow>();
  for (const write of writes) {
    const key = `${write.checkpointNs}\u0000${write.checkpointId}\u0000${write.taskId}\u0000${write.idx}`;
    if (write.idx >= 0 && byKey.has(key)) continue;
    byKey.set(key, write);
  }
  return [...byKey.values()];
}
