import { hostname } from "node:os";
import { type Clock, KeelError, newRandomId, systemClock } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointConfig,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  checkpointIdOf,
  type Durability,
  matchesFilter,
  namespaceOf,
  ORDERED_SAVES,
  type PendingWrite,
  requireThreadId,
  type Serializer,
  writeIndex,
} from "../base/index.js";
import { checkDurability, durabilityOf } from "./durability.js";
import { fillRowsBlobWrites } from "./pending-writes.js";
import {
  greaterMaxId,
  knownMaxId,
  PlaceCache,
  type PlaceState,
  placeNewId,
} from "./place-cache.js";
import { type PruneOptions, type PruneResult, pruneThread } from "./prune.js";
import {
  deleteThreadRows,
  listCheckpoints,
  listThreads,
  readCheckpoint,
  readMaxSeq,
  readThread,
} from "./queries.js";
import type { CheckpointRow, Place, ThreadSummary, WriteRow } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import { type EncodedStep, encodeStep } from "./step-encoder.js";
import { decodeRow, readRowFormat, rowMetadata } from "./tuple-decoder.js";
import { WriteQueue } from "./write-queue.js";

/** Options every durable saver accepts. */
export interface DurableSaverOptions {
  /** When checkpoints become durable (default `sync`); a run may override it per call. */
  durability?: Durability;
  /** In `async` mode, how many steps may wait before `put` blocks (default 64). */
  maxQueuedSteps?: number;
  /** Value encoding (default: the port's JSON serde). */
  serde?: Serializer;
  /** Time source for `_at` columns and leases. */
  clock?: Clock;
  /**
   * This writer's lease identity (default `host:pid:random`). A thread leased by another live
   * owner refuses this saver's writes with THREAD_LEASED.
   */
  ownerId?: string;
}

/**
 * A checkpoint saver on a SQL database (the base of `SqliteSaver` and `PostgresSaver`).
 *
 * - A step is one row: small values, the version maps and the writes of the step's tasks live
 *   in the checkpoint row (`value-map.ts`); large values are blobs, stored only when they change,
 *   and a list that grew by appending stores only the new items.
 * - A task's writes are committed no later than its step's checkpoint, in the same transaction
 *   when they are made in the same turn of the event loop; one transaction per step.
 * - Every value carries a hash; a corrupted one is refused with CHECKPOINT_CORRUPT.
 */
export abstract class DurableSaver extends BaseCheckpointSaver {
  /** A step's writes are queued before its checkpoint and share its commit (see ORDERED_SAVES). */
  readonly [ORDERED_SAVES] = true;
  readonly ownerId: string;
  protected readonly clock: Clock;
  private readonly defaultDurability: Durability;
  private readonly queue: WriteQueue;
  private readonly places = new PlaceCache();
  /** The store `fromConnString` is opening, which this saver owns and closes. */
  protected storeOpening: Promise<Store> | undefined;

  protected constructor(
    protected readonly db: SqlRunner,
    options: DurableSaverOptions = {},
  ) {
    super(options.serde);
    this.clock = options.clock ?? systemClock;
    this.ownerId = options.ownerId ?? `${hostname()}:${process.pid}:${newRandomId().slice(0, 8)}`;
    this.defaultDurability = checkDurability(options.durability ?? "sync");
    this.queue = new WriteQueue(
      (batch) => this.db.commit(batch),
      () => this.ownerId,
      () => this.clock.now(),
      Math.max(1, options.maxQueuedSteps ?? 64),
      this.serde,
    );
    // What failed to commit must not be used as the base of a delta or an inherited entry.
    this.queue.onFailure = (threadIds) => this.places.forget(threadIds);
  }
  /** Waits until the store behind `fromConnString` is open and migrated (a no-op otherwise). */
  async setup(): Promise<void> {
    if (this.storeOpening) await this.storeOpening;
  }

  /** Closes the store `fromConnString` opened (a no-op for a saver on your own database). */
  async close(): Promise<void> {
    const opening = this.storeOpening;
    this.storeOpening = undefined;
    if (opening) await (await opening).close();
  }

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const place = placeOf(config, "read a checkpoint");
    await this.queue.flush();
    const id = checkpointIdOf(config);
    const row = await readCheckpoint(this.db, place, id);
    if (!row) {
      // The place has no checkpoint (a new thread): its first `put` needs no read of its highest
      // seq, which this read already found to be none.
      if (id === undefined && this.queue.idle && this.places.get(place) === undefined)
        this.places.set(place, emptyPlace(0, undefined));
      return undefined;
    }
    const decoded = await decodeRow(this.db, this.serde, row);
    if (id === undefined) {
      // The latest checkpoint is what the next `put` builds on: remember it, unless a write
      // raced. The highest seq may belong to another branch (a fork from the past): marked stale,
      // the next `put` reads it (a reader that never writes pays no query for it).
      if (this.queue.idle) {
        this.places.set(place, {
          maxSeq: row.seq,
          maxId: knownMaxId(row.id),
          latestId: row.id,
          latestEntries: decoded.entries,
          lastWritten: decoded.lastWritten,
          stale: true,
        });
      }
    } else {
      // A run going back to a checkpoint by id (a resume, time travel, updateState) may follow
      // writes of another saver this one never saw.
      const state = this.places.get(place);
      if (state) state.stale = true;
    }
    return decoded.tuple;
  }

  async *list(
    config: CheckpointConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    await this.queue.flush();
    const threadId = config.configurable?.thread_id;
    const ns = config.configurable?.checkpoint_ns;
    const beforeId = checkpointIdOf(options.before);
    const rows = await listCheckpoints(this.db, {
      ...(typeof threadId === "string" ? { threadId } : {}),
      ...(typeof ns === "string" ? { checkpointNs: ns } : {}),
      ...(beforeId ? { beforeId } : {}),
      ...(options.filter === undefined && options.limit !== undefined
        ? { limit: options.limit }
        : {}),
    });
    // Without `before`, every newer row of a listed place is in `rows` (newest first), so each
    // checkpoint's children — which carry some of its writes — are known without a query.
    const children = beforeId === undefined ? childrenByParent(rows) : undefined;
    let yielded = 0;
    for (const row of rows) {
      if (options.limit !== undefined && yielded >= options.limit) return;
      if (options.filter) {
        const parsed = readRowFormat(this.serde, row);
        const { head, map } = parsed;
        // Compact metadata is rebuilt from the row's writes, some of which may be its blobs.
        if (parsed.blobWrites !== undefined && head.compactMetadata)
          await fillRowsBlobWrites(this.db, row, [row], [parsed]);
        const metadata = rowMetadata(this.serde, row, head, map) as Record<string, unknown>;
        if (!matchesFilter(metadata, options.filter)) continue;
      }
      const own = children ? (children.get(childKey(row, row.id)) ?? []) : undefined;
      yield (await decodeRow(this.db, this.serde, row, own)).tuple;
      yielded++;
    }
  }

  put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<CheckpointConfig> {
    return this.putChecked(config, checkpoint, metadata, newVersions, false);
  }

  private putChecked(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    refreshed: boolean,
  ): Promise<CheckpointConfig> {
    // Not an async function: a step committed synchronously (SQLite, `sync`) makes one promise.
    try {
      const place = placeOf(config, "save a checkpoint");
      const state = this.places.get(place);
      if (!state)
        return this.loadState(place).then(() =>
          this.putChecked(config, checkpoint, metadata, newVersions, true),
        );
      // A fork (a parent other than the latest this saver knows), or a place another saver may
      // have written since: the seq comes from the database, not the cache (the next step of a
      // run, the common case, reads nothing).
      if (
        !refreshed &&
        (state.stale ||
          (state.latestId !== undefined && !this.inherits(state, checkpointIdOf(config))))
      )
        return readMaxSeq(this.db, place).then(({ maxSeq, maxId }) => {
          state.maxSeq = Math.max(state.maxSeq, maxSeq);
          state.maxId = greaterMaxId(state.maxId, knownMaxId(maxId));
          state.stale = false;
          return this.putChecked(config, checkpoint, metadata, newVersions, true);
        });
      const saved: CheckpointConfig = {
        configurable: {
          thread_id: place.threadId,
          checkpoint_ns: place.checkpointNs,
          checkpoint_id: checkpoint.id,
        },
      };
      // A commit to wait for resolves to `saved` itself (no `then` of the saver's on it).
      const waiting = this.queueStep(
        place,
        state,
        config,
        checkpoint,
        metadata,
        newVersions,
        saved,
      );
      return waiting ?? Promise.resolve(saved);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Encodes a step and queues it; returns what to wait for (the commit, in `sync` mode), which
   * resolves to `saved`.
   */
  private queueStep(
    place: Place,
    state: PlaceState,
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    saved: CheckpointConfig,
  ): Promise<CheckpointConfig> | undefined {
    const durability = durabilityOf(config) ?? this.defaultDurability;
    const parentId = checkpointIdOf(config);
    const inPlace = this.inherits(state, parentId);
    const placed = placeNewId(state.maxId, checkpoint.id);
    let step: EncodedStep;
    try {
      step = encodeStep(this.serde, state, {
        place,
        parentId,
        parentEntries: inPlace ? state.latestEntries : new Map(),
        inPlace,
        checkpoint,
        metadata,
        newVersions,
        now: this.clock.now(),
        belowLatest: placed.belowLatest,
      });
    } catch (error) {
      // The latest entries may be half updated: read them again before the next step.
      if (inPlace) this.places.forget([place.threadId]);
      throw error;
    }
    state.maxSeq = step.checkpoint.seq;
    state.maxId = placed.maxId;
    state.latestId = checkpoint.id;
    state.latestEntries = step.entries;
    for (const [channel, remember] of step.remembered) state.lastWritten.set(channel, remember);
    return this.queue.addCheckpoint(place.threadId, step.checkpoint, step.blobs, durability, saved);
  }

  putWrites(config: CheckpointConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    // Not an async function: queueing writes makes no promise of its own.
    try {
      this.queueWrites(config, writes, taskId);
      return DONE;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private queueWrites(config: CheckpointConfig, writes: PendingWrite[], taskId: string): void {
    const threadId = requireThreadId(config, "save pending writes");
    const checkpointNs = namespaceOf(config);
    const checkpointId = checkpointIdOf(config);
    if (checkpointId === undefined) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        'Cannot save pending writes: the config has no "configurable.checkpoint_id".',
        { hint: "Pending writes belong to a checkpoint; pass the config `put` returned." },
      );
    }
    // Plain literals, not spreads: this runs for every task of every step.
    const rows: WriteRow[] = new Array(writes.length);
    for (let position = 0; position < writes.length; position++) {
      const [channel, value] = writes[position]!;
      rows[position] = {
        threadId,
        checkpointNs,
        checkpointId,
        taskId,
        idx: writeIndex(channel, position),
        taskPath: "",
        channel,
        valueJson: this.serde.dumps(value),
        // Computed at commit time only for rows that go to the writes table.
        valueHash: "",
      };
    }
    this.queue.addWrites(threadId, rows, durabilityOf(config) ?? this.defaultDurability);
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.queue.flush();
    this.places.forget([threadId]);
    await deleteThreadRows(this.db, threadId);
  }

  /**
   * Deletes a thread with everything it stored and its run records, in one transaction: a crash
   * never leaves runs without their thread or a thread without its runs. Resolves to the number
   * of run records deleted.
   */
  async deleteThreadAndRuns(threadId: string): Promise<{ runsDeleted: number }> {
    await this.queue.flush();
    this.places.forget([threadId]);
    const [runsDeleted = 0] = await this.db.atomic([
      { sql: "DELETE FROM state_runs WHERE thread_id = ?", params: [threadId] },
      { sql: "DELETE FROM state_threads WHERE id = ?", params: [threadId] },
    ]);
    return { runsDeleted };
  }

  /** The database the saver writes (the run store shares it). */
  get sql(): SqlRunner {
    return this.db;
  }

  /** Commits everything queued (in `async`/`exit` mode); rejects if a background commit failed. */
  override flush(): Promise<void> {
    return this.queue.flush();
  }

  /** One thread, or THREAD_NOT_FOUND. */
  async getThread(threadId: string): Promise<ThreadSummary> {
    await this.queue.flush();
    const thread = await readThread(this.db, threadId);
    if (!thread) throw threadNotFound(threadId);
    return thread;
  }

  /**
   * Threads, most recently updated first, a page at a time (indexed: fast with any number of
   * threads). Pass the last thread of a page as `after` to get the next.
   */
  async listThreads(
    options: { limit?: number; after?: ThreadSummary } = {},
  ): Promise<ThreadSummary[]> {
    await this.queue.flush();
    return listThreads(this.db, {
      limit: options.limit ?? 50,
      ...(options.after
        ? { after: { updatedAt: options.after.updatedAt, threadId: options.after.threadId } }
        : {}),
    });
  }

  /**
   * Deletes old checkpoints of a thread (keep the last N, or those newer than a time) and the
   * values and writes only they used. The latest checkpoint of every namespace, and every value
   * it needs, are always kept: a pruned thread resumes and shows its state as before.
   */
  async prune(threadId: string, options: PruneOptions): Promise<PruneResult> {
    await this.queue.flush();
    if (!(await readThread(this.db, threadId))) throw threadNotFound(threadId);
    return pruneThread(this.db, this.serde, threadId, options);
  }

  /** What the saver knows of a place it has not cached: its highest seq. */
  private async loadState(place: Place): Promise<PlaceState> {
    const { maxSeq, maxId } = await readMaxSeq(this.db, place);
    return this.places.get(place) ?? this.places.set(place, emptyPlace(maxSeq, maxId));
  }

  /**
   * True when a step inherits the parent's entry texts: its parent is the checkpoint this saver
   * last wrote or read as latest (the next step of a run). Any other parent (a fork from the past,
   * a parent this process never saw) inherits nothing: every value of the step is stored again,
   * so a new branch never points at values of old checkpoints that a concurrent prune may delete.
   */
  private inherits(state: PlaceState, parentId: string | undefined): boolean {
    return parentId !== undefined && parentId === state.latestId;
  }
}

const DONE: Promise<void> = Promise.resolve();

/** What a saver knows of a place none of whose checkpoints it has read: its highest seq and id. */
function emptyPlace(maxSeq: number, maxId: string | undefined): PlaceState {
  return {
    maxSeq,
    maxId: knownMaxId(maxId),
    latestId: undefined,
    latestEntries: new Map(),
    lastWritten: new Map(),
    stale: false,
  };
}

/** Rows grouped by the (place, parent) they are children of. */
function childrenByParent(rows: readonly CheckpointRow[]): Map<string, CheckpointRow[]> {
  const byParent = new Map<string, CheckpointRow[]>();
  for (const row of rows) {
    if (row.parentId === null) continue;
    const key = childKey(row, row.parentId);
    const group = byParent.get(key);
    if (group) group.push(row);
    else byParent.set(key, [row]);
  }
  return byParent;
}

function childKey(place: Place, parentId: string): string {
  return `${place.threadId}\u0000${place.checkpointNs}\u0000${parentId}`;
}

function placeOf(config: CheckpointConfig, action: string): Place {
  return { threadId: requireThreadId(config, action), checkpointNs: namespaceOf(config) };
}

/** THREAD_NOT_FOUND for an id. */
export function threadNotFound(threadId: string): KeelError {
  return new KeelError("THREAD_NOT_FOUND", `No thread "${threadId}" in this database.`, {
    details: { threadId },
    hint: "List threads with `keel runs list`.",
  });
}
