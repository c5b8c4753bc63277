/**
 * The data the checkpointer port moves between the graph engine and a saver. Field names follow
 * LangGraph.js's checkpoint format (snake_case), so a checkpoint reads the same in both.
 */

/**
 * The version of one channel: a positive number whose integer part grows by one each time the
 * channel is updated. With a checkpointer the graph engine adds a random fraction below one
 * (pregel/apply.ts), so that two branches of a thread never give a channel the same version;
 * versions are compared only for equality. Savers may store it as text, but must hand back the
 * same number.
 */
export type ChannelVersion = number;

/** Channel name → version. */
export type ChannelVersions = Record<string, ChannelVersion>;

/**
 * The state of a graph between two super-steps.
 *
 * `channel_values` holds only channels that have a value (an empty channel is absent), and the
 * graph engine lists the same channels in `channel_versions`; `versions_seen[node]` records the
 * trigger versions consumed by the nodes of the step that made the checkpoint (the engine decides
 * what runs next from which trigger channels hold a value, see docs/graph.md).
 */
export interface Checkpoint {
  /** Checkpoint format version (see `CHECKPOINT_FORMAT_VERSION`). */
  v: number;
  /** Time-ordered unique id (UUIDv7): ids of one thread sort in the order they were written. */
  id: string;
  /** When the checkpoint was made, as an ISO 8601 string. */
  ts: string;
  channel_values: Record<string, unknown>;
  channel_versions: ChannelVersions;
  versions_seen: Record<string, ChannelVersions>;
}

/** Why a checkpoint was written. */
export type CheckpointSource = "input" | "loop" | "update" | "fork";

/** What the engine records alongside each checkpoint. */
export interface CheckpointMetadata {
  /**
   * - `input`: the input of an invoke/stream call was received (step -1 on a new thread).
   * - `loop`: a super-step finished.
   * - `update`: `updateState` changed the state by hand.
   * - `fork`: a copy of a past checkpoint made to branch history.
   */
  source: CheckpointSource;
  /** Super-step number: -1 for the first input, 0 for the first loop step, then +1 per step. */
  step: number;
  /** Checkpoint namespace → id of the parent graph's checkpoint (for subgraphs); `{}` at the root. */
  parents: Record<string, string>;
  /** What each node wrote in the step that produced this checkpoint (node → update), or null. */
  writes: Record<string, unknown> | null;
  /** Any other serialisable fields a caller adds (filterable with `list`). */
  [key: string]: unknown;
}

/** A write a task made: `[channel, value]`. */
export type PendingWrite = [channel: string, value: unknown];

/** A write saved against a checkpoint: `[taskId, channel, value]`. */
export type CheckpointPendingWrite = [taskId: string, channel: string, value: unknown];

/**
 * What `getDeltaChannelHistory` finds for one channel on the way from a checkpoint to its root:
 * the writes saved on its ancestors, oldest first (the checkpoint's own writes are for the next
 * step and are left out), and `seed`, the value stored at the nearest ancestor that has one
 * (absent when none has: the channel starts empty).
 */
export interface DeltaChannelHistory {
  writes: CheckpointPendingWrite[];
  seed?: unknown;
}

/** The `configurable` part of a config: which thread, namespace and checkpoint. */
export interface CheckpointConfigurable {
  thread_id?: string;
  /** Subgraph namespace; `""` (the default) is the root graph. */
  checkpoint_ns?: string;
  /** A specific checkpoint; absent means "the latest". */
  checkpoint_id?: string;
  [key: string]: unknown;
}

/**
 * When a saved step must be durable (the `durability` option of `invoke`, as in LangGraph.js):
 * - `sync`: before the next step starts.
 * - `async`: in the background while the next steps run; a bounded queue pushes back when full.
 *   A crash loses at most the queued steps, never consistency.
 * - `exit`: only when the run ends, fails or pauses.
 */
export type Durability = "sync" | "async" | "exit";

/** The durability modes, for validation. */
export const DURABILITY_MODES: readonly Durability[] = ["sync", "async", "exit"];

/** The part of a run's config a saver reads. Shaped like LangGraph's `RunnableConfig`. */
export interface CheckpointConfig {
  configurable?: CheckpointConfigurable;
  /**
   * How durable this call's writes must be when its promise resolves. The engine sets it on every
   * `put`/`putWrites` of a run; savers without a write queue (MemorySaver) may ignore it.
   */
  durability?: Durability;
}

/** A saved checkpoint with its address, metadata, parent and the writes saved against it. */
export interface CheckpointTuple {
  /** Config addressing exactly this checkpoint (thread_id, checkpoint_ns, checkpoint_id). */
  config: CheckpointConfig & {
    configurable: Required<
      Pick<CheckpointConfigurable, "thread_id" | "checkpoint_ns" | "checkpoint_id">
    >;
  };
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  /** Config of the checkpoint this one was made from; absent for the first of a thread. */
  parentConfig?: CheckpointConfig;
  /** Writes of tasks that ran from this checkpoint, in (taskId, index) order. */
  pendingWrites: CheckpointPendingWrite[];
}

/** Options of `BaseCheckpointSaver.list`. */
export interface CheckpointListOptions {
  /** Only checkpoints whose metadata has these values (shallow equality per key). */
  filter?: Record<string, unknown>;
  /** Only checkpoints older than this one (by id). */
  before?: CheckpointConfig;
  /** At most this many tuples. */
  limit?: number;
}
