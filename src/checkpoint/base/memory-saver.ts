import { KeelError } from "../../core/index.js";
import {
  assertCheckpointFormat,
  checkpointIdOf,
  matchesFilter,
  namespaceOf,
  requireThreadId,
  writeIndex,
} from "./checkpoint.js";
import { collectDeltaHistory, type DeltaAncestor, NO_STORED_VALUE } from "./delta-history.js";
import { BaseCheckpointSaver } from "./saver.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointConfig,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
} from "./types.js";

interface StoredCheckpoint {
  v: number;
  id: string;
  ts: string;
  channelVersions: ChannelVersions;
  /** Shared with the engine's copy-on-write records (see the port contract). */
  versionsSeen: Record<string, ChannelVersions>;
  metadata: string;
  parentId: string | undefined;
  /** channel → id of the checkpoint that stored the value this checkpoint has. */
  holders: Record<string, string>;
  /**
   * channel → serialised value (null when the channel became empty) of the channels this
   * checkpoint stored. Values are kept by the checkpoint that stored them, not by version: a fork
   * may reach a version number the other branch used, and both values must survive.
   */
  stored: Map<string, string | null>;
}

interface StoredWrite {
  taskId: string;
  index: number;
  channel: string;
  value: string;
}

interface NamespaceStore {
  checkpoints: Map<string, StoredCheckpoint>;
  /** channel → version → the last holder of that version (for a put whose parent is unknown). */
  byVersion: Map<string, Map<number, string>>;
  /** checkpoint id → `taskId \0 index` → write. */
  writes: Map<string, Map<string, StoredWrite>>;
  latestId: string | undefined;
}

/**
 * An in-memory checkpointer: complete (history, pending writes, time travel), fast, and gone when
 * the process exits. Use it in tests and short-lived programs; use the SQLite or Postgres saver
 * for runs that must survive a restart.
 *
 * Values are serialised on `put` (so later mutation of state objects cannot rewrite history, and
 * an unserialisable value fails here as it would on a database), and only the channels whose
 * version changed are serialised.
 *
 * @example
 * const graph = builder.compile({ checkpointer: new MemorySaver() });
 * await graph.invoke({ topic: "x" }, { configurable: { thread_id: "t1" } });
 */
export class MemorySaver extends BaseCheckpointSaver {
  private readonly threads = new Map<string, Map<string, NamespaceStore>>();

  async getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id;
    if (typeof threadId !== "string") return undefined;
    const ns = namespaceOf(config);
    const store = this.threads.get(threadId)?.get(ns);
    if (!store) return undefined;
    const id = checkpointIdOf(config) ?? store.latestId;
    const stored = id === undefined ? undefined : store.checkpoints.get(id);
    if (!stored) return undefined;
    return this.toTuple(threadId, ns, store, stored);
  }

  async *list(
    config: CheckpointConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const threadId = config.configurable?.thread_id;
    const wantNs = config.configurable?.checkpoint_ns;
    const wantId = checkpointIdOf(config);
    const beforeId = checkpointIdOf(options.before);
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    const threadIds = typeof threadId === "string" ? [threadId] : [...this.threads.keys()];
    for (const tid of threadIds) {
      const namespaces = this.threads.get(tid);
      if (!namespaces) continue;
      for (const [ns, store] of namespaces) {
        if (typeof wantNs === "string" && ns !== wantNs) continue;
        const ids = [...store.checkpoints.keys()].sort().reverse();
        for (const id of ids) {
          if (remaining <= 0) return;
          if (wantId !== undefined && id !== wantId) continue;
          if (beforeId !== undefined && id >= beforeId) continue;
          const stored = store.checkpoints.get(id)!;
          const tuple = this.toTuple(tid, ns, store, stored);
          if (!matchesFilter(tuple.metadata, options.filter)) continue;
          remaining -= 1;
          yield tuple;
        }
      }
    }
  }

  async put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersionsArg?: ChannelVersions,
  ): Promise<CheckpointConfig> {
    const threadId = requireThreadId(config, "save a checkpoint");
    // A subclass written for LangGraph often overrides `put(config, checkpoint, metadata)` and
    // forwards three arguments; without the changed versions every channel counts as changed.
    const newVersions = newVersionsArg ?? checkpoint.channel_versions;
    const ns = namespaceOf(config);
    assertCheckpointFormat(checkpoint);
    const store = this.namespace(threadId, ns);
    const parentId = checkpointIdOf(config);
    const parent = parentId === undefined ? undefined : store.checkpoints.get(parentId);
    const holders: Record<string, string> = {};
    // Keyed by name and number, never by a joined string: no version is printed per step.
    const stored = new Map<string, string | null>();
    for (const channel in newVersions) {
      const has = Object.hasOwn(checkpoint.channel_values, channel);
      stored.set(channel, has ? this.serde.dumps(checkpoint.channel_values[channel]) : null);
      let versions = store.byVersion.get(channel);
      if (!versions) {
        versions = new Map();
        store.byVersion.set(channel, versions);
      }
      versions.set(newVersions[channel]!, checkpoint.id);
      holders[channel] = checkpoint.id;
    }
    for (const channel in checkpoint.channel_versions) {
      if (Object.hasOwn(holders, channel)) continue;
      const holder =
        parent?.holders[channel] ??
        store.byVersion.get(channel)?.get(checkpoint.channel_versions[channel]!);
      if (holder !== undefined) holders[channel] = holder;
    }
    store.checkpoints.set(checkpoint.id, {
      v: checkpoint.v,
      id: checkpoint.id,
      ts: checkpoint.ts,
      // The caller hands the checkpoint over (port contract), so its maps are kept, not copied.
      channelVersions: checkpoint.channel_versions,
      versionsSeen: checkpoint.versions_seen,
      metadata: this.serde.dumps(metadata),
      parentId,
      holders,
      stored,
    });
    if (store.latestId === undefined || checkpoint.id > store.latestId)
      store.latestId = checkpoint.id;
    return {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(config: CheckpointConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const threadId = requireThreadId(config, "save pending writes");
    const checkpointId = checkpointIdOf(config);
    if (checkpointId === undefined) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        'Cannot save pending writes: the config has no "configurable.checkpoint_id".',
        {
          hint: "Pending writes belong to a checkpoint; pass the config `put` returned.",
        },
      );
    }
    const store = this.namespace(threadId, namespaceOf(config));
    let forCheckpoint = store.writes.get(checkpointId);
    if (!forCheckpoint) {
      forCheckpoint = new Map();
      store.writes.set(checkpointId, forCheckpoint);
    }
    writes.forEach(([channel, value], position) => {
      const index = writeIndex(channel, position);
      const key = `${taskId}\u0000${index}`;
      if (index >= 0 && forCheckpoint.has(key)) return;
      forCheckpoint.set(key, { taskId, index, channel, value: this.serde.dumps(value) });
    });
  }

  /**
   * The base walk (see {@link BaseCheckpointSaver.getDeltaChannelHistory}) over the stored
   * checkpoints themselves: per ancestor it decodes only the asked channels' writes and seed,
   * not the whole tuple (a thread's read of a delta key walks up to `snapshotFrequency` ancestors).
   */
  override async getDeltaChannelHistory(options: {
    config: CheckpointConfig;
    channels: readonly string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    const threadId = config.configurable?.thread_id;
    const store =
      typeof threadId === "string"
        ? this.threads.get(threadId)?.get(namespaceOf(config))
        : undefined;
    if (!store) return collectDeltaHistory(channels, []);
    const id = checkpointIdOf(config) ?? store.latestId;
    const start = id === undefined ? undefined : store.checkpoints.get(id)?.parentId;
    return collectDeltaHistory(channels, this.storedAncestors(store, start, channels));
  }

  /** The stored ancestors from `id` back, reading only `channels`' writes and values. */
  private *storedAncestors(
    store: NamespaceStore,
    id: string | undefined,
    channels: readonly string[],
  ): Generator<DeltaAncestor> {
    const asked = new Set(channels);
    for (let cursor = id; cursor !== undefined; ) {
      const stored = store.checkpoints.get(cursor);
      if (!stored) return;
      yield {
        writes: this.pendingWritesOf(store, cursor, asked),
        valueOf: (channel) => {
          if (!Object.hasOwn(stored.channelVersions, channel)) return NO_STORED_VALUE;
          const holder = stored.holders[channel];
          const blob =
            holder === undefined ? undefined : store.checkpoints.get(holder)?.stored.get(channel);
          return blob === undefined || blob === null ? NO_STORED_VALUE : this.serde.loads(blob);
        },
      };
      cursor = stored.parentId;
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }

  private namespace(threadId: string, ns: string): NamespaceStore {
    let namespaces = this.threads.get(threadId);
    if (!namespaces) {
      namespaces = new Map();
      this.threads.set(threadId, namespaces);
    }
    let store = namespaces.get(ns);
    if (!store) {
      store = {
        checkpoints: new Map(),
        byVersion: new Map(),
        writes: new Map(),
        latestId: undefined,
      };
      namespaces.set(ns, store);
    }
    return store;
  }

  private toTuple(
    threadId: string,
    ns: string,
    store: NamespaceStore,
    stored: StoredCheckpoint,
  ): CheckpointTuple {
    const channelValues: Record<string, unknown> = {};
    for (const channel in stored.channelVersions) {
      const holder = stored.holders[channel];
      const blob =
        holder === undefined ? undefined : store.checkpoints.get(holder)?.stored.get(channel);
      if (blob !== undefined && blob !== null) channelValues[channel] = this.serde.loads(blob);
    }
    const versionsSeen: Record<string, ChannelVersions> = {};
    for (const node in stored.versionsSeen) versionsSeen[node] = { ...stored.versionsSeen[node] };
    const tuple: CheckpointTuple = {
      config: {
        configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: stored.id },
      },
      checkpoint: {
        v: stored.v,
        id: stored.id,
        ts: stored.ts,
        channel_values: channelValues,
        channel_versions: { ...stored.channelVersions },
        versions_seen: versionsSeen,
      },
      metadata: this.serde.loads(stored.metadata) as CheckpointMetadata,
      pendingWrites: this.pendingWritesOf(store, stored.id),
    };
    if (stored.parentId !== undefined) {
      tuple.parentConfig = {
        configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: stored.parentId },
      };
    }
    return tuple;
  }

  /** A checkpoint's pending writes ordered by `(taskId, index)`; only `channels`' when given. */
  private pendingWritesOf(
    store: NamespaceStore,
    checkpointId: string,
    channels?: ReadonlySet<string>,
  ): CheckpointPendingWrite[] {
    const writes = store.writes.get(checkpointId);
    if (!writes) return [];
    const kept = channels
      ? [...writes.values()].filter((write) => channels.has(write.channel))
      : [...writes.values()];
    return kept
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.index - b.index))
      .map((write) => [write.taskId, write.channel, this.serde.loads(write.value)]);
  }
}
