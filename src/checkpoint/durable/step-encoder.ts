import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  keyJson,
  type Serializer,
} from "../base/index.js";
import { type BlobRow, encodeBlob, type LastWritten } from "./blob-codec.js";
import type { PlaceState } from "./place-cache.js";
import type { Place, PlacedBlobRow } from "./rows.js";
import {
  blobEntry,
  INLINE_MAX,
  inlineEntry,
  type QueuedCheckpoint,
  seenJsonOf,
  versionEntry,
} from "./value-map.js";

/** What `put` hands the encoder. */
export interface StepInput {
  place: Place;
  parentId: string | undefined;
  /**
   * Entry texts of the parent's row (empty for the first checkpoint). When it is the saver's own
   * map of its latest checkpoint, the step's entries are written into it in place (a step changes
   * a few channels of many): the saver must forget it if encoding throws.
   */
  parentEntries: Map<string, string>;
  /** True when `parentEntries` may be updated in place (see above). */
  inPlace: boolean;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
  now: number;
  /** 1 when the checkpoint's id may sort below the place's greatest (`placeNewId`). */
  belowLatest: 0 | 1;
}

/** One step, ready to queue, and what the cache learns from it. */
export interface EncodedStep {
  checkpoint: QueuedCheckpoint;
  blobs: PlacedBlobRow[];
  entries: Map<string, string>;
  remembered: Array<[string, LastWritten]>;
}

/**
 * Turns a checkpoint into its row and blobs. Unchanged channels reuse the parent's entry as is;
 * a changed value is inline when small, else a blob (a delta on the channel's last blob when the
 * list only grew or the record changed a little).
 */
export function encodeStep(serde: Serializer, state: PlaceState, input: StepInput): EncodedStep {
  const { place, checkpoint, newVersions, parentEntries } = input;
  const seq = state.maxSeq + 1;
  const entries = input.inPlace ? parentEntries : new Map<string, string>();
  const stored: StoredValues = { blobs: [], remembered: [], texts: undefined };
  const values = checkpoint.channel_values;
  const versions = checkpoint.channel_versions;
  // No closure here: this runs every step (and tsx would rename a closure at every call).
  let body = "";
  for (const channel in values) {
    const inherited = parentEntries.get(channel);
    const entry =
      inherited !== undefined && newVersions[channel] === undefined
        ? inherited
        : changedEntry(
            serde,
            state,
            stored,
            place,
            seq,
            channel,
            values[channel],
            versions[channel],
            inherited,
          );
    entries.set(channel, entry);
    body += `${body === "" ? "" : ","}${keyJson(channel)}:${entry}`;
  }
  for (const channel in versions) {
    if (Object.hasOwn(values, channel)) continue;
    const entry = versionEntry(versions[channel]);
    entries.set(channel, entry);
    body += `${body === "" ? "" : ","}${keyJson(channel)}:${entry}`;
  }
  if (entries === parentEntries) {
    // Channels of the parent this checkpoint no longer lists are not inherited by the next one.
    for (const channel of entries.keys())
      if (!Object.hasOwn(values, channel) && !Object.hasOwn(versions, channel))
        entries.delete(channel);
  }
  const { metadata } = input;
  return {
    checkpoint: {
      threadId: place.threadId,
      checkpointNs: place.checkpointNs,
      id: checkpoint.id,
      seq,
      parentId: input.parentId ?? null,
      formatVersion: serde.format,
      step: metadata.step,
      source: metadata.source,
      metadata,
      texts: stored.texts,
      createdAt: input.now,
      belowLatest: input.belowLatest,
      v: checkpoint.v,
      ts: checkpoint.ts,
      entries: body,
      seenJson: seenJsonOf(checkpoint.versions_seen),
    },
    blobs: stored.blobs,
    entries,
    remembered: stored.remembered,
  };
}

/** The blobs a step writes and what the cache learns from them. */
interface StoredValues {
  blobs: PlacedBlobRow[];
  remembered: Array<[string, LastWritten]>;
  /**
   * Channel → the text this step stores for it: an inline value's, or the `value_json` of the
   * blob it writes (a full value or an append). A pending write with the same text is stored
   * without it (`sealCheckpoint`). Made at the first.
   */
  texts: Map<string, string> | undefined;
}

/** The entry of a channel whose value changed: inline when small, else a blob (maybe a delta). */
function changedEntry(
  serde: Serializer,
  state: PlaceState,
  stored: StoredValues,
  place: Place,
  seq: number,
  channel: string,
  value: unknown,
  version: unknown,
  inherited: string | undefined,
): string {
  const last = state.lastWritten.get(channel);
  // A delta may only extend the blob the parent itself uses.
  const base =
    last && inherited !== undefined && entrySeq(inherited) === last.seq ? last : undefined;
  let text: string | undefined;
  if (!base || !(Array.isArray(value) || isRecord(value))) {
    text = serde.dumps(value);
    if (text.length <= INLINE_MAX) {
      stored.texts ??= new Map();
      stored.texts.set(channel, text);
      return inlineEntry(version, text);
    }
  }
  // A delta on the previous blob is usually far smaller than the value.
  const delta = text === undefined ? base : undefined;
  const { row, remember } = encodeBlob(serde, at(channel, seq, version), value, delta, text);
  stored.blobs.push(placed(row, place));
  stored.remembered.push([channel, remember]);
  if (row.valueJson !== null) {
    stored.texts ??= new Map();
    stored.texts.set(channel, row.valueJson);
  }
  return blobEntry(version, seq);
}

function placed(row: BlobRow, place: Place): PlacedBlobRow {
  return {
    threadId: place.threadId,
    checkpointNs: place.checkpointNs,
    channel: row.channel,
    seq: row.seq,
    version: row.version,
    encoding: row.encoding,
    baseSeq: row.baseSeq,
    chainCount: row.chainCount,
    valueJson: row.valueJson,
    valueHash: row.valueHash,
  };
}

function at(channel: string, seq: number, version: unknown) {
  return { channel, seq, version: version === undefined ? "" : String(version) };
}

/** The blob seq an entry text points at (0 for an inline value or a bare version). */
export function entrySeq(entry: string): number {
  // An entry of a numeric version (the engine's) is `[version,seq…`: read the seq's digits
  // where they stand instead of parsing the entry (an inline value's text can be long).
  const first = entry.charCodeAt(1);
  if (
    entry.charCodeAt(0) === 0x5b /* [ */ &&
    ((first >= 0x30 && first <= 0x39) || first === 0x2d)
  ) {
    const comma = entry.indexOf(",");
    if (comma < 0) return 0;
    let seq = 0;
    for (let i = comma + 1; i < entry.length; i++) {
      const digit = entry.charCodeAt(i) - 0x30;
      if (digit >= 0 && digit <= 9) seq = seq * 10 + digit;
      else return i > comma + 1 && (entry[i] === "," || entry[i] === "]") ? seq : slowSeq(entry);
    }
  }
  return slowSeq(entry);
}

function slowSeq(entry: string): number {
  const seq = (JSON.parse(entry) as unknown[])[1];
  return typeof seq === "number" ? seq : 0;
}

function isRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
