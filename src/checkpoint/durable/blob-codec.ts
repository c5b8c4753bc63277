import { hash } from "node:crypto";
import { KeelError } from "../../core/index.js";
import type { Serializer } from "../base/serde.js";

/**
 * How one stored value is encoded:
 * - `full`: the whole value.
 * - `append`: the items appended to the list stored by `base_checkpoint_seq` (a message list under
 *   a concat reducer: 500 steps that each add one message store 500 messages, not 125,000).
 * - `patch`: the keys set (`s`) and deleted (`d`) since the record stored by `base_checkpoint_seq`
 *   (the engine's `versions_seen`, which changes by one node per step).
 * - `empty`: no value.
 * A list is stored whole again once the items appended since its last full copy outnumber that
 * copy (so full copies grow geometrically and cost about as much as the list itself), a record
 * every `MAX_CHAIN` versions; either way a read resolves at most `MAX_APPEND_CHAIN` deltas.
 * Small values never get a blob: they live in the checkpoint row itself (see `value-map.ts`).
 */
export type BlobEncoding = "full" | "append" | "patch" | "empty";

/** One row of `state_checkpoint_blobs`, as written. */
export interface BlobRow {
  channel: string;
  /** The seq of the checkpoint that stores this value (part of the key). */
  seq: number;
  version: string;
  encoding: BlobEncoding;
  baseSeq: number | null;
  chainCount: number;
  valueJson: string | null;
  valueHash: string;
}

/**
 * What the saver remembers about the last value it wrote of a channel, to encode the next. It
 * keeps serialised text, never the value itself: a node may mutate a list item or a record in
 * place between steps, and a delta computed against the mutated object would miss the change.
 */
export interface LastWritten {
  seq: number;
  /**
   * The text of each item of the list, as stored (`Serializer.listItemTexts`): an append must
   * leave exactly these first. Kept per item so the next step compares only items and joins only
   * the new ones, not the whole list's text again.
   */
  itemTexts?: readonly string[] | undefined;
  /** The list's serialised text, as stored, for a serializer without `listItemTexts`. */
  listText?: string | undefined;
  /** Number of items of that list. */
  length?: number;
  /** Length of the list at its last full copy. */
  fullLength?: number;
  /** The serialised text of each key of the record. */
  keyTexts?: ReadonlyMap<string, string> | undefined;
  chainCount: number;
}

/** What to remember of a value just read back (before the engine can mutate it). */
export function rememberValue(
  serde: Serializer,
  seq: number,
  value: unknown,
  fullLength: number,
  chainCount: number,
): LastWritten | undefined {
  if (Array.isArray(value)) {
    const length = value.length;
    if (serde.listItemTexts)
      return { seq, itemTexts: serde.listItemTexts(value), length, fullLength, chainCount };
    return { seq, listText: serde.dumps(value), length, fullLength, chainCount };
  }
  if (isPlainRecord(value)) return { seq, keyTexts: keyTextsOf(serde, value), chainCount };
  return undefined;
}

/** The longest run of `patch` blobs before a `full` one is written again. */
export const MAX_CHAIN = 32;

/** The longest run of `append` blobs (lists also go full when appends outgrow the last copy). */
export const MAX_APPEND_CHAIN = 512;

/** Appends allowed before the first full copy counts (a list that starts empty). */
const MIN_APPENDS = 8;

/** A short content hash that detects a corrupted or truncated value on read. */
export function valueHashOf(text: string | null): string {
  // One-shot `hash` skips the Hash object `createHash` allocates: half the cost per value.
  return hash("sha256", text ?? "", "hex").slice(0, 16);
}

interface At {
  channel: string;
  seq: number;
  version: string;
}

/**
 * Encodes a value, relative to `last` (the value of the same channel in the parent checkpoint)
 * when that is smaller: an append for a list that only grew at its end (same item objects, in
 * order), a patch for a record with few changed keys; otherwise in full.
 */
export function encodeBlob(
  serde: Serializer,
  at: At,
  value: unknown,
  last: LastWritten | undefined,
  text?: string,
): { row: BlobRow; remember: LastWritten } {
  const { seq } = at;
  if (value === undefined) {
    return { row: rowOf(at, "empty", null, 0, null), remember: { seq, chainCount: 0 } };
  }
  const canChain = last !== undefined && last.chainCount < MAX_CHAIN;
  if (Array.isArray(value)) return encodeList(serde, at, value, last, text);
  if (isPlainRecord(value)) {
    const keyTexts = keyTextsOf(serde, value);
    if (canChain && last.keyTexts) {
      const patch = patchOf(last.keyTexts, keyTexts, value);
      if (patch) {
        const chainCount = last.chainCount + 1;
        return {
          row: rowOf(at, "patch", last.seq, chainCount, serde.dumps(patch)),
          remember: { seq, keyTexts, chainCount },
        };
      }
    }
    return {
      row: rowOf(at, "full", null, 0, text ?? serde.dumps(value)),
      remember: { seq, keyTexts, chainCount: 0 },
    };
  }
  return {
    row: rowOf(at, "full", null, 0, text ?? serde.dumps(value)),
    remember: { seq, chainCount: 0 },
  };
}

/** Whether a list may be stored as an append to `last` (see `BlobEncoding`). */
function mayAppend(last: LastWritten | undefined, length: number): last is LastWritten {
  if (last === undefined || last.chainCount >= MAX_APPEND_CHAIN) return false;
  const fullLength = last.fullLength ?? 0;
  return length - fullLength <= fullLength || last.chainCount < MIN_APPENDS;
}

function encodeList(
  serde: Serializer,
  at: At,
  value: unknown[],
  last: LastWritten | undefined,
  text: string | undefined,
): { row: BlobRow; remember: LastWritten } {
  const { seq } = at;
  const length = value.length;
  // Item by item when the serializer gives each item's text (only the new items are joined);
  // as one text for a serializer that only writes whole values. No closures: this runs every
  // step, and a closure made per call costs its allocation (and, under tsx, a rename).
  const itemTexts = serde.listItemTexts ? serde.listItemTexts(value) : undefined;
  const listText = itemTexts === undefined ? (text ?? serde.dumps(value)) : undefined;
  if (mayAppend(last, length)) {
    // Compared as text: an item changed in place since the last step is a change.
    const appended =
      itemTexts !== undefined
        ? last.itemTexts === undefined
          ? undefined
          : appendedItems(last.itemTexts, itemTexts)
        : last.listText === undefined
          ? undefined
          : appendedText(last.listText, listText as string);
    if (appended !== undefined) {
      const chainCount = last.chainCount + 1;
      const fullLength = last.fullLength ?? 0;
      return {
        row: rowOf(at, "append", last.seq, chainCount, appended),
        remember: { seq, itemTexts, listText, length, fullLength, chainCount },
      };
    }
  }
  const full = listText ?? text ?? `[${(itemTexts as string[]).join(",")}]`;
  return {
    row: rowOf(at, "full", null, 0, full),
    remember: { seq, itemTexts, listText, length, fullLength: length, chainCount: 0 },
  };
}

/**
 * The text of the items `next` adds after `previous` (both lists of item texts), as a list; or
 * undefined when `next` does not start with exactly `previous`.
 */
function appendedItems(previous: readonly string[], next: readonly string[]): string | undefined {
  const known = previous.length;
  if (next.length < known) return undefined;
  // The message cache hands back the very string it stored, so most of these are one pointer check.
  for (let index = 0; index < known; index++) if (next[index] !== previous[index]) return undefined;
  let text = "[";
  for (let index = known; index < next.length; index++)
    text += index === known ? next[index] : `,${next[index]}`;
  return `${text}]`;
}

/**
 * The text of the items `next` appends to `previous` (both a serialised list), or undefined when
 * `next` is not `previous` with items added at its end.
 */
function appendedText(previous: string, next: string): string | undefined {
  if (previous.length < 2 || previous[0] !== "[" || previous[previous.length - 1] !== "]")
    return undefined;
  if (next[0] !== "[" || next[next.length - 1] !== "]") return undefined;
  const open = previous.length - 1; // the text before the previous list's closing bracket
  if (next.length <= open || !next.startsWith(previous.slice(0, open))) return undefined;
  if (open === 1) return next; // the previous list was empty: every item is new
  if (next === previous) return "[]";
  return next[open] === "," ? `[${next.slice(open + 1)}` : undefined;
}

function keyTextsOf(serde: Serializer, record: Record<string, unknown>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const key of Object.keys(record)) texts.set(key, serde.dumps(record[key]));
  return texts;
}

function rowOf(
  at: At,
  encoding: BlobEncoding,
  baseSeq: number | null,
  chainCount: number,
  valueJson: string | null,
): BlobRow {
  // A literal, not `{ ...at, … }`: a spread that adds keys is V8's slow path.
  return {
    channel: at.channel,
    seq: at.seq,
    version: at.version,
    encoding,
    baseSeq,
    chainCount,
    valueJson,
    valueHash: valueHashOf(valueJson),
  };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Keys set and deleted from `before` to `after`, or undefined when a full copy is as small. */
function patchOf(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  value: Record<string, unknown>,
): { s: Record<string, unknown>; d: string[] } | undefined {
  const set: Record<string, unknown> = {};
  const deleted: string[] = [];
  let changes = 0;
  const limit = Math.max(1, after.size >> 1);
  for (const [key, text] of after) {
    if (before.get(key) === text) continue;
    set[key] = value[key];
    if (++changes > limit) return undefined;
  }
  for (const key of before.keys()) {
    if (after.has(key)) continue;
    deleted.push(key);
    if (++changes > limit) return undefined;
  }
  return { s: set, d: deleted };
}

/** A stored blob as read back, before its chain is resolved. */
export interface StoredBlob {
  channel: string;
  seq: number;
  version: string;
  encoding: string;
  baseSeq: number | null;
  valueJson: string | null;
  valueHash: string;
}

/** Where a value came from, for error messages. */
export interface BlobPlace {
  threadId: string;
  checkpointNs: string;
}

/**
 * Decodes one value from its blob and the blobs of its chain (`bySeq` holds the blobs of the
 * channel the read fetched, by seq). Returns `undefined` for an empty channel. Throws
 * CHECKPOINT_CORRUPT when a blob fails its hash, does not parse, or its chain is broken.
 */
export function decodeBlob(
  serde: Serializer,
  place: BlobPlace,
  start: StoredBlob,
  bySeq: ReadonlyMap<number, StoredBlob>,
): unknown {
  const deltas: Array<{ blob: StoredBlob; value: unknown }> = [];
  let blob: StoredBlob = start;
  for (let hops = 0; ; hops++) {
    if (hops > MAX_APPEND_CHAIN + 1) throw corrupt(place, blob, "its chain of deltas does not end");
    if (blob.encoding === "empty") {
      if (deltas.length > 0) throw corrupt(place, blob, "a delta extends an empty value");
      return undefined;
    }
    const value = parseChecked(serde, place, blob);
    if (blob.encoding === "full") return applyDeltas(place, value, deltas);
    if ((blob.encoding !== "append" && blob.encoding !== "patch") || blob.baseSeq === null) {
      throw corrupt(place, blob, `its encoding "${blob.encoding}" is not readable`);
    }
    deltas.push({ blob, value });
    const base = bySeq.get(blob.baseSeq);
    if (!base) throw corrupt(place, blob, "the value it extends is missing");
    blob = base;
  }
}

function applyDeltas(
  place: BlobPlace,
  full: unknown,
  deltas: ReadonlyArray<{ blob: StoredBlob; value: unknown }>,
): unknown {
  let value = full;
  for (let index = deltas.length - 1; index >= 0; index--) {
    const delta = deltas[index];
    if (!delta) continue;
    if (delta.blob.encoding === "append") {
      if (!Array.isArray(value) || !Array.isArray(delta.value)) {
        throw corrupt(place, delta.blob, "an append extends a value that is not a list");
      }
      value = value.concat(delta.value);
      continue;
    }
    const patch = delta.value as { s?: unknown; d?: unknown };
    if (!isPlainRecord(value) || !isPlainRecord(patch.s) || !Array.isArray(patch.d)) {
      throw corrupt(place, delta.blob, "a patch extends a value that is not a record");
    }
    const next: Record<string, unknown> = { ...value, ...patch.s };
    for (const key of patch.d) delete next[String(key)];
    value = next;
  }
  return value;
}

function parseChecked(serde: Serializer, place: BlobPlace, blob: StoredBlob): unknown {
  if (valueHashOf(blob.valueJson) !== blob.valueHash) {
    throw corrupt(place, blob, "its content does not match its hash");
  }
  try {
    return serde.loads(blob.valueJson ?? "null");
  } catch (cause) {
    if (cause instanceof KeelError) throw cause;
    throw corrupt(place, blob, "it is not valid JSON", cause);
  }
}

function corrupt(place: BlobPlace, blob: StoredBlob, why: string, cause?: unknown): KeelError {
  const channel = blob.channel.startsWith("\u001f") ? blob.channel.slice(1) : blob.channel;
  return new KeelError(
    "CHECKPOINT_CORRUPT",
    `The stored value of channel "${channel}" (version ${blob.version}) on thread "${place.threadId}" is unreadable: ${why}.`,
    {
      cause,
      details: {
        threadId: place.threadId,
        checkpointNs: place.checkpointNs,
        channel,
        version: blob.version,
      },
      hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint (`keel runs history`).",
    },
  );
}
