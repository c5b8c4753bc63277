import { KeelError } from "../../../core/index.js";
import { EmptyChannelError, InvalidUpdateError } from "../../errors.js";
import { overwriteOf } from "../../overwrite.js";
import type { Channel } from "../channel.js";
import { BaseChannel } from "./base-channel.js";
import { EngineChannel } from "./engine-channel.js";

/**
 * A batch reducer: `reducer(state, [write1, write2, …])`. It must be batching-invariant
 * (`r(r(s, xs), ys)` equals `r(s, xs.concat(ys))`), which is what lets LangGraph.js replay a
 * thread's writes in larger batches than they were made.
 */
export type DeltaReducer<Value, Update = unknown> = (state: Value, writes: Update[]) => Value;

/** Options of {@link DeltaChannel}. */
export interface DeltaChannelOptions<Value> {
  /** How many updates between full snapshots in saved checkpoints (positive integer; 1000). */
  snapshotFrequency?: number;
  /** The value of an empty channel (default `[]`). */
  initialValueFactory?: () => Value;
}

/**
 * A full value stored in a checkpoint in place of a delta channel's writes (LangGraph.js's
 * `DeltaSnapshot`); {@link DeltaChannel.fromCheckpoint} accepts it.
 */
export class DeltaSnapshot<Value = unknown> {
  readonly lg_name = "DeltaSnapshot";
  constructor(readonly value: Value) {}
}

/** True for a {@link DeltaSnapshot} (also one from another copy of the module). */
export function isDeltaSnapshot(value: unknown): value is DeltaSnapshot {
  return (
    value instanceof DeltaSnapshot ||
    (typeof value === "object" &&
      value !== null &&
      (value as { lg_name?: unknown }).lg_name === "DeltaSnapshot" &&
      "value" in value)
  );
}

/** A pending write as LangGraph.js's savers hand it out: `[taskId, channel, value]`. */
export type DeltaWrite = readonly [string, string, unknown];

/**
 * LangGraph.js's `DeltaChannel`: a reducer key whose reducer takes a step's writes as one batch.
 * An `Overwrite` wins its whole step (its siblings are dropped; two in one step are an
 * `InvalidUpdateError`).
 *
 * As in LangGraph.js, a graph saves such a key as writes between snapshots (a `DeltaSnapshot`
 * every `snapshotFrequency` updates) and replays them on read; Keel's SQL savers store it by
 * value instead (see docs/graph.md).
 *
 * @example
 * const State = Annotation.Root({
 *   messages: new DeltaChannel(messagesDeltaReducer),
 * });
 */
export class DeltaChannel<Value = unknown, Update = unknown> extends BaseChannel<
  Value,
  Update,
  undefined
> {
  lc_graph_name = "DeltaChannel";
  /** The value; undefined when the channel is empty. */
  value: Value | undefined = undefined;
  readonly snapshotFrequency: number;
  readonly initialValueFactory: () => Value;

  constructor(
    readonly reducer: DeltaReducer<Value, Update>,
    options: DeltaChannelOptions<Value> = {},
  ) {
    super();
    const frequency = options.snapshotFrequency ?? 1000;
    if (!Number.isInteger(frequency) || frequency <= 0)
      throw new KeelError(
        "INVALID_ARGUMENT",
        `snapshotFrequency must be a positive integer, got ${frequency}.`,
        { hint: "Pass e.g. { snapshotFrequency: 100 }." },
      );
    this.snapshotFrequency = frequency;
    this.initialValueFactory = options.initialValueFactory ?? (() => [] as Value);
  }

  private empty(): DeltaChannel<Value, Update> {
    return new DeltaChannel(this.reducer, {
      snapshotFrequency: this.snapshotFrequency,
      initialValueFactory: this.initialValueFactory,
    });
  }

  /**
   * A channel holding a stored value: nothing (the initial value), a {@link DeltaSnapshot}, or a
   * plain value.
   */
  fromCheckpoint(checkpoint?: unknown): this {
    const made = this.empty();
    if (checkpoint === undefined) made.value = this.initialValueFactory();
    else if (isDeltaSnapshot(checkpoint)) made.value = checkpoint.value as Value;
    else made.value = checkpoint as Value;
    return made as this;
  }

  /** Folds a thread's writes, oldest first, in one reducer call; the last `Overwrite` resets. */
  replayWrites(writes: readonly DeltaWrite[]): void {
    if (writes.length === 0) return;
    let base = this.value as Value;
    let start = 0;
    writes.forEach((write, index) => {
      const over = overwriteOf(write[2]);
      if (over) {
        base = (over.value ?? this.initialValueFactory()) as Value;
        start = index + 1;
      }
    });
    const rest = writes.slice(start).map((write) => write[2] as Update);
    this.value = rest.length > 0 ? this.reducer(base, rest) : base;
  }

  update(values: Update[]): boolean {
    if (values.length === 0) return false;
    let over: { value: unknown } | undefined;
    for (const value of values) {
      const found = overwriteOf(value);
      if (!found) continue;
      if (over)
        throw new InvalidUpdateError("Can receive only one Overwrite value per step.", {
          hint: "Let one node return Overwrite(...) for this key per step.",
        });
      over = found;
    }
    if (over) {
      this.value = (over.value ?? this.initialValueFactory()) as Value;
      return true;
    }
    this.value = this.reducer(this.value ?? this.initialValueFactory(), values);
    return true;
  }

  get(): Value {
    if (this.value === undefined) throw new EmptyChannelError("The DeltaChannel is empty.");
    return this.value;
  }

  override isAvailable(): boolean {
    return this.value !== undefined;
  }

  /** Always undefined: LangGraph.js's savers store a delta channel's writes, not its value. */
  checkpoint(): undefined {
    return undefined;
  }

  override equals(other: BaseChannel): boolean {
    return (
      other instanceof DeltaChannel &&
      other.snapshotFrequency === this.snapshotFrequency &&
      other.reducer === this.reducer
    );
  }

  /**
   * The engine's channel: it checkpoints the value (what Keel's SQL savers store); the run's
   * persistence leaves it out between snapshots for other savers (see `DeltaSaves`).
   */
  override createChannel(_key: string): Channel {
    return new DeltaEngineChannel(
      new DeltaByValue(this.fromCheckpoint(undefined)),
      this.reducer,
      this.snapshotFrequency,
    );
  }
}

/**
 * A delta key as the engine runs it: an {@link EngineChannel} that also remembers whether a step
 * since the last checkpoint wrote it in a way replaying the saved writes would not reproduce: an
 * `Overwrite` (replayed in task-id order, a sibling's write could land after the reset), or
 * several writes in one step (the engine applies them in node order, a replay in task-id order).
 * Such a step's checkpoint stores the key as a snapshot.
 */
export class DeltaEngineChannel extends EngineChannel {
  /** True once such a write happened since the flag was last taken. */
  replayUnsafe = false;

  constructor(
    inner: ConstructorParameters<typeof EngineChannel>[0],
    reducer: unknown,
    readonly snapshotFrequency: number,
  ) {
    super(inner, reducer);
  }

  override write(value: unknown, firstInStep: boolean): void {
    if (!firstInStep || overwriteOf(value)) this.replayUnsafe = true;
    super.write(value, firstInStep);
  }

  /** Whether such a write happened since the last call. */
  takeReplayUnsafe(): boolean {
    const seen = this.replayUnsafe;
    this.replayUnsafe = false;
    return seen;
  }
}

/** A delta channel seen by the engine: checkpoints its value instead of nothing. */
class DeltaByValue<Value, Update> {
  constructor(readonly channel: DeltaChannel<Value, Update>) {}
  update(values: Update[]): boolean {
    return this.channel.update(values);
  }
  get(): Value {
    return this.channel.get();
  }
  isAvailable(): boolean {
    return this.channel.isAvailable();
  }
  consume(): boolean {
    return false;
  }
  checkpoint(): Value | undefined {
    return this.channel.value;
  }
  fromCheckpoint(checkpoint?: Value): DeltaByValue<Value, Update> {
    return new DeltaByValue(this.channel.fromCheckpoint(checkpoint));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * LangGraph.js's task id for the writes an `exit`-durability run saves for a delta channel: the
 * task id with its first group replaced by the zero-padded step, so the ids sort by step.
 *
 * @example
 * exitDeltaTaskId(3, "00000000-0000-0000-0000-000000000000"); // "00000003-0000-0000-0000-000000000000"
 */
export function exitDeltaTaskId(step: number, taskId: string): string {
  if (!UUID.test(taskId))
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Invalid task id for exit delta: ${JSON.stringify(taskId)}.`,
      {
        hint: "Pass a task id in UUID form.",
      },
    );
  return `${String(step).padStart(8, "0")}${taskId.slice(8)}`;
}
