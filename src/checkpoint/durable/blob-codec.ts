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

/** What the saver remembers about the last value it wrote of a channel, to encode the next. */
export interface LastWritten {
  seq: number;
  /** A shallow copy of the list (never the engine's own array, which a reducer may reuse). */
  items?: readonly unknown[] | undefined;
  /** Length of the list at its last full copy. */
  fullLength?: number;
  /** A shallow copy of the record. */
  record?: Readonly<Record<string, unknown>> | undefined;
  chainCount: number;
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
  if (Array.isArray(value)) {
    const items = value.slice();
    const fullLength = last?.fullLength ?? 0;
    const appendedSinceFull = items.length - fullLength;
    if (
      last?.items &&
      last.chainCount < MAX_APPEND_CHAIN &&
      (appendedSinceFull <= fullLength || last.chainCount < MIN_APPENDS) &&
      extendsList(items, last.items)
    ) {
      const chainCount = last.chainCount + 1;
      return {
        row: rowOf(at, "append", last.seq, chainCount, serde.dumps(items.slice(last.items.length))),
        remember: { seq, items, fullLength, chainCount },
      };
    }
    return {
      row: rowOf(at, "full", null, 0, text ?? serde.dumps(items)),
      remember: { seq, items, fullLength: items.length, chainCount: 0 },
    };
  }
  if (isPlainRecord(value)) {
    const record = { ...value };
    if (canChain && last.record) {
      const patch = patchOf(last.record, record);
      if (patch) {
        const chainCount = last.chainCount + 1;
        return {
          row: rowOf(at, "patch", last.seq, chainCount, serde.dumps(patch)),
          remember: { seq, record, chainCount },
        };
      }
    }
    return {
      row: rowOf(at, "full", null, 0, text ?? serde.dumps(record)),
      remember: { seq, record, chainCount: 0 },
    };
  }
  return {
    row: rowOf(at, "full", null, 0, text ?? serde.dumps(value)),
    remember: { seq, chainCount: 0 },
  };
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

function extendsList(next: readonly unknown[], previous: readonly unknown[]): boolean {
  if (next.length < previous.length) return false;
  for (let index = 0; index < previous.length; index++) {
    if (next[index] !== previous[index]) return false;
  }
  return true;
}

/** Keys set and deleted from `before` to `after`, or undefined when a full copy is as small. */
function patchOf(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): { s: Record<string, unknown>; d: string[] } | undefined {
  const set: Record<string, unknown> = {};
  const deleted: string[] = [];
  let changes = 0;
  const keys = Object.keys(after);
  const limit = Math.max(1, keys.length >> 1);
  for (const key of keys) {
    if (Object.hasOwn(before, key) && sameShallow(before[key], after[key])) continue;
    set[key] = after[key];
    if (++changes > limit) return undefined;
  }
  for (const key in before) {
    if (Object.hasOwn(after, key)) continue;
    deleted.push(key);
    if (++changes > limit) return undefined;
  }
  return { s: set, d: deleted };
}

/** Identical, or records whose own keys hold identical primitives/references (one level). */
function sameShallow(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isPlainRecord(a) || !isPlainRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || a[key] !== b[key]) return false;
  return true;
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
