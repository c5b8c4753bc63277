import { collectDeltaHistory, type DeltaAncestor, NO_STORED_VALUE } from "./delta-history.js";
import { jsonSerde, type Serializer } from "./serde.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointConfig,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
} from "./types.js";

/**
 * The checkpointer port: how the graph engine persists and reloads its state. Every saver
 * (`MemorySaver`, the SQLite and Postgres savers) implements this contract, and one conformance
 * suite checks them all.
 *
 * The contract:
 * - **Addresses.** A checkpoint is addressed by `configurable.thread_id`, `checkpoint_ns` (`""`
 *   for the root graph, a path for a subgraph) and `checkpoint_id`. Ids are UUIDv7, so within one
 *   thread and namespace they sort in the order checkpoints were made; "latest" means greatest id.
 * - **put** stores `checkpoint` as the child of `config.configurable.checkpoint_id` (absent for
 *   the first checkpoint of a thread) and returns the config of the new checkpoint. Values are
 *   stored per channel version: only the channels named in `newVersions` carry a value that is new;
 *   every other channel's value at `checkpoint.channel_versions[channel]` was stored by an earlier
 *   `put` on the same thread and namespace and must be reused, not stored again. A channel in
 *   `newVersions` that is absent from `channel_values` became empty at that version.
 *   The caller hands the checkpoint over: it never mutates it (or its inner records) afterwards.
 * - **putWrites** saves the writes one task made against the checkpoint addressed by `config`
 *   (which must name a `checkpoint_id`), before the next checkpoint exists, so that a crash or an
 *   interrupt in the middle of a step does not lose or repeat finished tasks. Writes are keyed by
 *   `(taskId, writeIndex(channel, position))`: saving an ordinary write that exists is a no-op;
 *   special channels (`__error__`, `__interrupt__`, `__resume__`) replace the previous one.
 *   Task ids are deterministic (same checkpoint, same task → same id), which is how a resumed run
 *   recognises the tasks that already finished.
 * - **getTuple** returns the addressed checkpoint (or the latest of the thread and namespace when
 *   no `checkpoint_id` is given) with its metadata, parent config and pending writes ordered by
 *   `(taskId, index)`, or `undefined`. Values are fresh copies: the caller may mutate them.
 * - **list** yields checkpoints newest first, across all namespaces of the thread unless
 *   `checkpoint_ns` is given, honouring `filter` (metadata equality), `before` and `limit`.
 * - **deleteThread** removes every checkpoint, value and write of a thread.
 * - **Durability.** `config.durability` says how durable a `put`/`putWrites` must be when its
 *   promise resolves: `sync` (committed), `async` or `exit` (may be queued until `flush`).
 * - Values go through `serde`; a value or checkpoint in a newer format is refused with
 *   `CHECKPOINT_FORMAT`, never mis-read.
 *
 * @example
 * class MySaver extends BaseCheckpointSaver {
 *   async getTuple(config) { … }
 *   async *list(config, options) { … }
 *   async put(config, checkpoint, metadata, newVersions) { … }
 *   async putWrites(config, writes, taskId) { … }
 *   async deleteThread(threadId) { … }
 * }
 */
export abstract class BaseCheckpointSaver {
  readonly serde: Serializer;

  constructor(serde: Serializer = jsonSerde) {
    this.serde = serde;
  }

  /** The checkpoint addressed by `config` (or the latest), without metadata. */
  async get(config: CheckpointConfig): Promise<Checkpoint | undefined> {
    return (await this.getTuple(config))?.checkpoint;
  }

  abstract getTuple(config: CheckpointConfig): Promise<CheckpointTuple | undefined>;

  abstract list(
    config: CheckpointConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<CheckpointTuple>;

  abstract put(
    config: CheckpointConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<CheckpointConfig>;

  abstract putWrites(
    config: CheckpointConfig,
    writes: PendingWrite[],
    taskId: string,
  ): Promise<void>;

  abstract deleteThread(threadId: string): Promise<void>;

  /**
   * For each of `channels`, the writes saved on the ancestors of the checkpoint `config` names,
   * oldest first, back to the nearest ancestor storing a value for it (its `seed`; those writes
   * included). This is how a channel stored as writes (LangGraph.js's `DeltaChannel` format) is
   * rebuilt. The walk reads `getTuple` and `parentConfig` once per ancestor, for all channels,
   * and relies on `getTuple`'s pending writes being ordered by task id, as the contract says.
   *
   * @example
   * const { messages } = await saver.getDeltaChannelHistory({ config, channels: ["messages"] });
   * // messages.seed: the stored value to start from; messages.writes: [taskId, channel, value][]
   */
  async getDeltaChannelHistory(options: {
    config: CheckpointConfig;
    channels: readonly string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    return collectDeltaHistory(channels, this.ancestorsOf(config));
  }

  /** The ancestors of `config`'s checkpoint, nearest first, as the delta-history walk reads them. */
  private async *ancestorsOf(config: CheckpointConfig): AsyncGenerator<DeltaAncestor> {
    let cursor = (await this.getTuple(config))?.parentConfig;
    while (cursor !== undefined) {
      const tuple = await this.getTuple(cursor);
      if (tuple === undefined) return;
      const values = tuple.checkpoint.channel_values;
      yield {
        writes: tuple.pendingWrites,
        valueOf: (channel) => (Object.hasOwn(values, channel) ? values[channel] : NO_STORED_VALUE),
      };
      cursor = tuple.parentConfig;
    }
  }

  /**
   * The version a channel gets when it is updated. The default is the engine's own: the integer
   * part counts updates, a random fraction below one keeps two branches of a thread apart. A saver
   * may override it (as in LangGraph.js) with its own increasing numbers; the engine calls it for
   * every updated channel of a checkpointed run only when it is overridden.
   *
   * @example
   * class CountingSaver extends MemorySaver {
   *   getNextVersion(current: number | undefined) { return (current ?? 0) + 1; }
   * }
   */
  getNextVersion(current: number | undefined): number {
    return nextChannelVersion(current);
  }

  /**
   * Makes everything this saver accepted durable. A saver that commits inside `put`/`putWrites`
   * has nothing to do; one that queues (the SQL savers in `async`/`exit` mode) commits its queue.
   * The engine calls it when a run in `async` or `exit` durability ends.
   */
  async flush(): Promise<void> {}

  /** Keeps a saver out of `JSON.stringify(config)` output (it may hold database clients). */
  toJSON(): string {
    return `[${this.constructor.name}]`;
  }
}

/**
 * Marks a saver whose saves must reach it one after another, each issued once the one before
 * settled, a step's task writes before its checkpoint (Keel's SQLite and Postgres savers: they
 * queue a step's writes and commit them in the checkpoint's transaction). Any other saver gets
 * LangGraph.js's order: a task's writes as it finishes, the step's checkpoint beside them.
 */
export const ORDERED_SAVES: unique symbol = Symbol.for("keel.orderedSaves");

/** True for a saver marked with {@link ORDERED_SAVES}. */
export function savesInOrder(saver: BaseCheckpointSaver): boolean {
  return (saver as { [ORDERED_SAVES]?: unknown })[ORDERED_SAVES] === true;
}

/** The engine's channel version after `current` (see {@link BaseCheckpointSaver.getNextVersion}). */
export function nextChannelVersion(current: number | undefined): number {
  return Math.floor(current ?? 0) + 1 + Math.random() * 0.999;
}

/** The saver's own `getNextVersion` when it overrides the default, else undefined. */
export function customNextVersion(
  saver: BaseCheckpointSaver | undefined,
): ((current: number | undefined) => number) | undefined {
  const own = (saver as { getNextVersion?: unknown } | undefined)?.getNextVersion;
  if (typeof own !== "function" || own === BaseCheckpointSaver.prototype.getNextVersion)
    return undefined;
  return (current) => (own as BaseCheckpointSaver["getNextVersion"]).call(saver, current);
}
