import { hostname } from "node:os";
import { type Clock, KeelError, newRandomId, systemClock } from "../../core/index.js";
import {
  assertCheckpointFormat,
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointConfig,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  checkpointIdOf,
  matchesFilter,
  namespaceOf,
  type PendingWrite,
  requireThreadId,
  type Serializer,
  writeIndex,
} from "../base/index.js";
import { assertReadableFormat } from "../base/serde.js";
import {
  type BlobPlace,
  decodeBlob,
  encodeBlob,
  type LastWritten,
  type StoredBlob,
  valueHashOf,
} from "./blob-codec.js";
import { type PruneOptions, type PruneResult, pruneThread } from "./prune.js";
import {
  deleteThreadRows,
  listCheckpoints,
  listThreads,
  readBlobs,
  readCheckpoint,
  readMaxSeq,
  readThread,
  readWrites,
} from "./queries.js";
import type { CheckpointRow, Place, PlacedBlobRow, ThreadSummary, WriteRow } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import { DURABILITY_MODES, type Durability, WriteQueue } from "./write-queue.js";

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

/** What the saver remembers of a thread it writes, so a step needs no read. */
interface PlaceCache {
  maxSeq: number;
  latestId: string | undefined;
  /** channel → seq of the checkpoint storing its value, for `latestId`. */
  latestSeqs: Record<string, number>;
  lastWritten: Map<string, LastWritten>;
}

const MAX_CACHED_PLACES = 1024;

/** Pseudo-channels (a unit-separator prefix no real channel name has; Postgres text cannot hold NUL) holding the checkpoint's bookkeeping maps. */
const VERSIONS_CHANNEL = "\u001fversions";
const SEEN_CHANNEL = "\u001fseen";
const EMPTY_PATCH = '{"s":{},"d":[]}';

/**
 * A checkpoint saver on a SQL database (the base of `SqliteSaver` and `PostgresSaver`).
 *
 * - Values are stored per channel version: a step stores only the channels it changed, and a
 *   list that grew by appending stores only the new items.
 * - A task's writes are committed no later than its step's checkpoint, in the same transaction
 *   when they are made in the same turn of the event loop; one transaction per step.
 * - Every value carries a hash; a corrupted one is refused with CHECKPOINT_CORRUPT.
 */
export abstract class DurableSaver extends BaseCheckpointSaver {
  readonly ownerId: string;
  protected readonly clock: Clock;
  private readonly defaultDurability: Durability;
  private readonly queue: WriteQueue;
  private readonly places = new Map<string, PlaceCache>();
  /**
   * The mode each thread's current run asked for. The engine passes the invoke config to the
   * first `getTuple`/`put` only; later calls use the configs the saver returned.
   */
  private readonly modes = new Map<string, Durability>();

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
    );
    this.queue.onFailure = (threadIds) => {
      // What failed to commit must not be used as the base of an append.
      for (const key of [...this.places.keys()]) {
        if (threadIds.some((id) => key.startsWith(`${id}\u0000`))) this.places.delete(key);
      }
    };
  }

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const place = placeOf(config, "read a checkpoint");
    this.noteMode(place.threadId, config);
    await this.queue.flush();
    const id = checkpointIdOf(config);
    const row = await readCheckpoint(this.db, place, id);
    if (!row) return undefined;
    const tuple = await this.toTuple(row, id === undefined);
    return tuple;
  }

  async *list(
    config: CheckpointConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    await this.queue.flush();
    const threadId = config.configurable?.thread_id;
    const ns = config.configurable?.checkpoint_ns;
    const rows = await listCheckpoints(this.db, {
      ...(typeof threadId === "string" ? { threadId } : {}),
      ...(typeof ns === "string" ? { checkpointNs: ns } : {}),
      ...(checkpointIdOf(options.before) ? { beforeId: checkpointIdOf(options.before) } : {}),
      ...(options.filter === undefined && options.limit !== undefined
        ? { limit: options.limit }
        : {}),
    });
    let yielded = 0;
    for (const row of rows) {
      if (options.limit !== undefined && yielded >= options.limit) return;
      if (options.filter) {
        const metadata = this.parseJson(row, "metadata", row.metadataJson) as Record<
          string,
          unknown
        >;
        if (!matchesFilter(metadata, options.filter)) continue;
      }
      yield await this.toTuple(row, false);
      yielded++;
    }
  }

  async put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<CheckpointConfig> {
    const place = placeOf(config, "save a checkpoint");
    const durability = this.modeOf(place.threadId, config);
    const cache = await this.cacheFor(place);
    const parentId = checkpointIdOf(config);
    const parentSeqs = await this.channelSeqsOf(place, cache, parentId);
    const seq = cache.maxSeq + 1;
    const channelSeqs: Record<string, number> = {};
    const blobs: PlacedBlobRow[] = [];
    const remembered: Array<[string, LastWritten]> = [];
    for (const channel in checkpoint.channel_values) {
      const inherited = parentSeqs[channel];
      if (inherited !== undefined && newVersions[channel] === undefined) {
        channelSeqs[channel] = inherited;
        continue;
      }
      const last = cache.lastWritten.get(channel);
      const { row, remember } = encodeBlob(
        this.serde,
        { channel, seq, version: String(checkpoint.channel_versions[channel] ?? "") },
        checkpoint.channel_values[channel],
        last && last.seq === inherited ? last : undefined,
      );
      blobs.push({ ...row, ...place });
      remembered.push([channel, remember]);
      channelSeqs[channel] = seq;
    }
    // The engine's bookkeeping maps are stored like channels, as patches on the parent's:
    // versions_seen gains one node per step, and a 100-node graph would otherwise store 100
    // entries at every step.
    for (const [channel, value] of [
      [VERSIONS_CHANNEL, checkpoint.channel_versions],
      [SEEN_CHANNEL, checkpoint.versions_seen],
    ] as const) {
      const inherited = parentSeqs[channel];
      const last = cache.lastWritten.get(channel);
      const { row, remember } = encodeBlob(
        this.serde,
        { channel, seq, version: "" },
        value,
        last && last.seq === inherited ? last : undefined,
      );
      if (inherited !== undefined && row.encoding === "patch" && row.valueJson === EMPTY_PATCH) {
        channelSeqs[channel] = inherited;
        continue;
      }
      blobs.push({ ...row, ...place });
      remembered.push([channel, remember]);
      channelSeqs[channel] = seq;
    }
    const {
      channel_values: _values,
      channel_versions: _versions,
      versions_seen: _seen,
      id,
      ...rest
    } = checkpoint;
    const row: CheckpointRow = {
      ...place,
      id,
      seq,
      parentId: parentId ?? null,
      formatVersion: this.serde.format,
      step: metadata.step,
      source: metadata.source,
      checkpointJson: JSON.stringify(rest),
      channelSeqsJson: JSON.stringify(channelSeqs),
      metadataJson: this.serde.dumps(metadata),
      createdAt: this.clock.now(),
    };
    cache.maxSeq = seq;
    cache.latestId = id;
    cache.latestSeqs = channelSeqs;
    for (const [channel, remember] of remembered) cache.lastWritten.set(channel, remember);
    await this.queue.addCheckpoint(place.threadId, row, blobs, durability);
    return {
      configurable: {
        thread_id: place.threadId,
        checkpoint_ns: place.checkpointNs,
        checkpoint_id: id,
      },
    };
  }

  async putWrites(config: CheckpointConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const place = placeOf(config, "save pending writes");
    const checkpointId = checkpointIdOf(config);
    if (checkpointId === undefined) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        'Cannot save pending writes: the config has no "configurable.checkpoint_id".',
        { hint: "Pending writes belong to a checkpoint; pass the config `put` returned." },
      );
    }
    const rows: WriteRow[] = writes.map(([channel, value], position) => {
      const valueJson = this.serde.dumps(value);
      return {
        ...place,
        checkpointId,
        taskId,
        idx: writeIndex(channel, position),
        taskPath: "",
        channel,
        valueJson,
        valueHash: valueHashOf(valueJson),
      };
    });
    this.queue.addWrites(place.threadId, rows, this.modeOf(place.threadId, config));
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.queue.flush();
    this.forget(threadId);
    await deleteThreadRows(this.db, threadId);
  }

  /** The database the saver writes (the run store shares it). */
  get sql(): SqlRunner {
    return this.db;
  }

  /** Commits everything queued (in `async` mode); rejects if a background commit failed. */
  flush(): Promise<void> {
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
    return pruneThread(this.db, threadId, options);
  }

  private async toTuple(row: CheckpointRow, warmCache: boolean): Promise<CheckpointTuple> {
    assertReadableFormat(this.serde, row.formatVersion);
    const place: Place = { threadId: row.threadId, checkpointNs: row.checkpointNs };
    const stored = this.parseJson(row, "checkpoint", row.checkpointJson) as Pick<
      Checkpoint,
      "v" | "ts"
    >;
    assertCheckpointFormat({ v: stored.v, id: row.id });
    const channelSeqs = this.parseJson(row, "channel map", row.channelSeqsJson) as Record<
      string,
      number
    >;
    const blobs = await readBlobs(this.db, place, Object.entries(channelSeqs));
    const byChannel = new Map<string, Map<number, StoredBlob>>();
    for (const blob of blobs) {
      let bySeq = byChannel.get(blob.channel);
      if (!bySeq) {
        bySeq = new Map();
        byChannel.set(blob.channel, bySeq);
      }
      bySeq.set(blob.seq, blob);
    }
    const values: Record<string, unknown> = {};
    const bookkeeping: Record<string, unknown> = {};
    const lastWritten = new Map<string, LastWritten>();
    const blobPlace: BlobPlace = place;
    for (const [channel, seq] of Object.entries(channelSeqs)) {
      const bySeq = byChannel.get(channel);
      const blob = bySeq?.get(seq);
      if (!bySeq || !blob) {
        throw new KeelError(
          "CHECKPOINT_CORRUPT",
          `Checkpoint ${row.id} of thread "${row.threadId}" needs a stored value (${channel.replace("\u001f", "")}) that is missing.`,
          {
            details: { threadId: row.threadId, checkpointId: row.id, channel },
            hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
          },
        );
      }
      const value = decodeBlob(this.serde, blobPlace, blob, bySeq);
      const chainCount = chainCountOf(blob, bySeq);
      if (channel === VERSIONS_CHANNEL || channel === SEEN_CHANNEL) {
        bookkeeping[channel] = value;
        lastWritten.set(channel, { seq, record: { ...(value as object) }, chainCount });
        continue;
      }
      if (value !== undefined) values[channel] = value;
      if (Array.isArray(value)) {
        const fullLength = value.length - appendedSinceFull(blob, bySeq);
        lastWritten.set(channel, { seq, items: value.slice(), fullLength, chainCount });
      }
    }
    if (warmCache) this.warm(place, row, channelSeqs, lastWritten);
    const writes = await readWrites(this.db, place, row.id);
    const pendingWrites: CheckpointPendingWrite[] = writes.map((write) => [
      write.taskId,
      write.channel,
      this.decodeWrite(write),
    ]);
    const configurable = {
      thread_id: row.threadId,
      checkpoint_ns: row.checkpointNs,
      checkpoint_id: row.id,
    };
    return {
      config: { configurable },
      checkpoint: {
        ...stored,
        id: row.id,
        channel_values: values,
        channel_versions: (bookkeeping[VERSIONS_CHANNEL] ?? {}) as Checkpoint["channel_versions"],
        versions_seen: (bookkeeping[SEEN_CHANNEL] ?? {}) as Checkpoint["versions_seen"],
      } as Checkpoint,
      metadata: this.parseValue(row, "metadata", row.metadataJson) as CheckpointMetadata,
      ...(row.parentId
        ? {
            parentConfig: {
              configurable: {
                thread_id: row.threadId,
                checkpoint_ns: row.checkpointNs,
                checkpoint_id: row.parentId,
              },
            },
          }
        : {}),
      pendingWrites,
    };
  }

  private decodeWrite(write: WriteRow): unknown {
    if (valueHashOf(write.valueJson) !== write.valueHash) {
      throw new KeelError(
        "CHECKPOINT_CORRUPT",
        `A pending write of task ${write.taskId} on thread "${write.threadId}" is corrupted (its content does not match its hash).`,
        {
          details: {
            threadId: write.threadId,
            checkpointId: write.checkpointId,
            taskId: write.taskId,
          },
          hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
        },
      );
    }
    return this.serde.loads(write.valueJson ?? "null");
  }

  private parseJson(row: CheckpointRow, what: string, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw corruptRow(row, what, cause);
    }
  }

  private parseValue(row: CheckpointRow, what: string, text: string): unknown {
    try {
      return this.serde.loads(text);
    } catch (cause) {
      if (cause instanceof KeelError) throw cause;
      throw corruptRow(row, what, cause);
    }
  }

  private warm(
    place: Place,
    row: CheckpointRow,
    channelSeqs: Record<string, number>,
    lastWritten: Map<string, LastWritten>,
  ): void {
    const key = placeKey(place);
    if (this.queue.idle) {
      this.remember(key, {
        maxSeq: row.seq,
        latestId: row.id,
        latestSeqs: channelSeqs,
        lastWritten,
      });
    }
  }

  private async cacheFor(place: Place): Promise<PlaceCache> {
    const key = placeKey(place);
    const cached = this.places.get(key);
    if (cached) return cached;
    const fresh: PlaceCache = {
      maxSeq: await readMaxSeq(this.db, place),
      latestId: undefined,
      latestSeqs: {},
      lastWritten: new Map(),
    };
    return this.places.get(key) ?? this.remember(key, fresh);
  }

  private remember(key: string, cache: PlaceCache): PlaceCache {
    this.places.delete(key);
    this.places.set(key, cache);
    if (this.places.size > MAX_CACHED_PLACES) {
      const oldest = this.places.keys().next().value;
      if (oldest !== undefined) this.places.delete(oldest);
    }
    return cache;
  }

  /** Where each channel of the parent checkpoint is stored; read from the database on a miss. */
  private async channelSeqsOf(
    place: Place,
    cache: PlaceCache,
    parentId: string | undefined,
  ): Promise<Record<string, number>> {
    if (parentId === undefined) return {};
    if (parentId === cache.latestId) return cache.latestSeqs;
    await this.queue.flush();
    const parent = await readCheckpoint(this.db, place, parentId);
    if (!parent) return {};
    return this.parseJson(parent, "channel map", parent.channelSeqsJson) as Record<string, number>;
  }

  private noteMode(threadId: string, config: CheckpointConfig): void {
    const mode = durabilityOf(config);
    if (mode === undefined || mode === this.defaultDurability) this.modes.delete(threadId);
    else this.modes.set(threadId, mode);
  }

  private modeOf(threadId: string, config: CheckpointConfig): Durability {
    const explicit = durabilityOf(config);
    if (explicit !== undefined) {
      this.noteMode(threadId, config);
      return explicit;
    }
    return this.modes.get(threadId) ?? this.defaultDurability;
  }

  private forget(threadId: string): void {
    this.modes.delete(threadId);
    for (const key of [...this.places.keys()]) {
      if (key.startsWith(`${threadId}\u0000`)) this.places.delete(key);
    }
  }
}

function placeOf(config: CheckpointConfig, action: string): Place {
  return { threadId: requireThreadId(config, action), checkpointNs: namespaceOf(config) };
}

function placeKey(place: Place): string {
  return `${place.threadId}\u0000${place.checkpointNs}`;
}

function chainCountOf(blob: StoredBlob, bySeq: ReadonlyMap<number, StoredBlob>): number {
  let count = 0;
  let current: StoredBlob | undefined = blob;
  while (current && current.encoding === "append" && current.baseSeq !== null) {
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

function durabilityOf(config: CheckpointConfig): Durability | undefined {
  const fromConfigurable = config.configurable?.durability;
  const fromConfig = (config as { durability?: unknown }).durability;
  const mode = fromConfigurable ?? fromConfig;
  return mode === undefined ? undefined : checkDurability(mode);
}

function checkDurability(mode: unknown): Durability {
  if (DURABILITY_MODES.includes(mode as Durability)) return mode as Durability;
  throw new KeelError("INVALID_ARGUMENT", `Unknown durability mode ${JSON.stringify(mode)}.`, {
    hint: `Use one of ${DURABILITY_MODES.join(", ")}.`,
  });
}

/** THREAD_NOT_FOUND for an id. */
export function threadNotFound(threadId: string): KeelError {
  return new KeelError("THREAD_NOT_FOUND", `No thread "${threadId}" in this database.`, {
    details: { threadId },
    hint: "List threads with `keel runs list`.",
  });
}

function corruptRow(row: CheckpointRow, what: string, cause: unknown): KeelError {
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
