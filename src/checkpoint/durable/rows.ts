import type { BlobRow } from "./blob-codec.js";

/** Where checkpoints live: a thread and a (sub)graph namespace (`""` is the root graph). */
export interface Place {
  threadId: string;
  checkpointNs: string;
}

/** One row of `state_checkpoints`. */
export interface CheckpointRow {
  threadId: string;
  checkpointNs: string;
  id: string;
  seq: number;
  parentId: string | null;
  formatVersion: number;
  step: number;
  source: string;
  checkpointJson: string;
  channelSeqsJson: string;
  metadataJson: string;
  createdAt: number;
}

/**
 * A checkpoint row as a commit writes it: with `is_below_latest` (1 when its id sorts below the
 * greatest id its place had when it was written; see `place-cache.ts`).
 */
export interface NewCheckpointRow extends CheckpointRow {
  belowLatest: 0 | 1;
}

/** One row of `state_checkpoint_writes`. */
export interface WriteRow {
  threadId: string;
  checkpointNs: string;
  checkpointId: string;
  taskId: string;
  idx: number;
  taskPath: string;
  channel: string;
  valueJson: string | null;
  valueHash: string;
}

/** A blob row with its place, as queued for commit. */
export interface PlacedBlobRow extends BlobRow {
  threadId: string;
  checkpointNs: string;
}

/** Everything one thread contributes to a commit. */
export interface ThreadBatch {
  threadId: string;
  checkpoints: NewCheckpointRow[];
  blobs: PlacedBlobRow[];
  writes: WriteRow[];
}

/** One commit: one transaction (one statement on Postgres) for every queued step. */
export interface CommitBatch {
  threads: ThreadBatch[];
  /** The writer's lease identity: a thread leased by another live owner refuses the commit. */
  ownerId: string;
  now: number;
}

/** One row of `state_threads`, as the thread APIs return it. */
export interface ThreadSummary {
  threadId: string;
  latestCheckpointId: string | null;
  /** Checkpoints of the thread; null in a listing (`listThreads` does not count, to stay fast). */
  checkpointCount: number | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Reads a database integer that the Postgres driver may hand back as a string (BIGINT). */
export function toInt(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

/** Same as `toInt`, keeping null. */
export function toIntOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toInt(value);
}
