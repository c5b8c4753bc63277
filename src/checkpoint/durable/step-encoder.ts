import type { ChannelVersions, Checkpoint, CheckpointMetadata, Serializer } from "../base/index.js";
import { encodeBlob, type LastWritten } from "./blob-codec.js";
import type { PlaceState } from "./place-cache.js";
import type { Place, PlacedBlobRow } from "./rows.js";
import {
  blobEntry,
  INLINE_MAX,
  inlineEntry,
  type QueuedCheckpoint,
  versionEntry,
} from "./value-map.js";

/** What `put` hands the encoder. */
export interface StepInput {
  place: Place;
  parentId: string | undefined;
  /** Entry texts of the parent's row (empty for the first checkpoint). */
  parentEntries: ReadonlyMap<string, string>;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
  now: number;
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
  const entries = new Map<string, string>();
  const blobs: PlacedBlobRow[] = [];
  const remembered: Array<[string, LastWritten]> = [];
  const values = checkpoint.channel_values;
  const versions = checkpoint.channel_versions;
  let body = "";
  const add = (channel: string, entry: string) => {
    entries.set(channel, entry);
    body += `${body === "" ? "" : ","}${JSON.stringify(channel)}:${entry}`;
  };
  for (const channel in values) {
    const inherited = parentEntries.get(channel);
    if (inherited !== undefined && newVersions[channel] === undefined) {
      add(channel, inherited);
      continue;
    }
    const value = values[channel];
    const version = versions[channel];
    const last = state.lastWritten.get(channel);
    // A delta may only extend the blob the parent itself uses.
    const base =
      last && inherited !== undefined && entrySeq(inherited) === last.seq ? last : undefined;
    if (base && (Array.isArray(value) || isRecord(value))) {
      // A delta on the previous blob is usually far smaller than the value.
      const { row, remember } = encodeBlob(serde, at(channel, seq, version), value, base);
      blobs.push({ ...row, ...place });
      remembered.push([channel, remember]);
      add(channel, blobEntry(version, seq));
      continue;
    }
    const text = serde.dumps(value);
    if (text.length <= INLINE_MAX) {
      add(channel, inlineEntry(version, text));
      continue;
    }
    const { row, remember } = encodeBlob(serde, at(channel, seq, version), value, undefined, text);
    blobs.push({ ...row, ...place });
    remembered.push([channel, remember]);
    add(channel, blobEntry(version, seq));
  }
  for (const channel in versions) {
    if (!Object.hasOwn(values, channel)) add(channel, versionEntry(versions[channel]));
  }
  const { metadata } = input;
  return {
    checkpoint: {
      ...place,
      id: checkpoint.id,
      seq,
      parentId: input.parentId ?? null,
      formatVersion: serde.format,
      step: metadata.step,
      source: metadata.source,
      metadataJson: serde.dumps(metadata),
      createdAt: input.now,
      v: checkpoint.v,
      ts: checkpoint.ts,
      entries: body,
      seenJson: JSON.stringify(checkpoint.versions_seen ?? {}),
    },
    blobs,
    entries,
    remembered,
  };
}

function at(channel: string, seq: number, version: unknown) {
  return { channel, seq, version: version === undefined ? "" : String(version) };
}

/** The blob seq an entry text points at (0 for an inline value or a bare version). */
function entrySeq(entry: string): number {
  const seq = (JSON.parse(entry) as unknown[])[1];
  return typeof seq === "number" ? seq : 0;
}

function isRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
