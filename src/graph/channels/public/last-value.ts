import { EmptyChannelError, InvalidUpdateError } from "../../errors.js";
import { BaseChannel } from "./base-channel.js";

/** Builds a single-value channel class: the last write wins, `guard` refuses two in one step. */
abstract class SingleValue<Value> extends BaseChannel<Value, Value, Value> {
  protected value: Value | undefined;
  protected present = false;

  protected constructor(protected readonly initialValueFactory?: () => Value) {
    super();
    if (initialValueFactory) {
      this.value = initialValueFactory();
      this.present = true;
    }
  }

  protected set(values: Value[], guard: boolean): boolean {
    if (values.length === 0) return false;
    if (guard && values.length > 1)
      throw new InvalidUpdateError(
        `A ${this.lc_graph_name} channel can take one value per step; it got ${values.length}.`,
        {
          code: "INVALID_CONCURRENT_GRAPH_UPDATE",
          hint: "Use a channel with a reducer (BinaryOperatorAggregate, Topic) for concurrent writes.",
        },
      );
    this.value = values[values.length - 1];
    this.present = true;
    return true;
  }

  get(): Value {
    if (!this.present) throw new EmptyChannelError(`The ${this.lc_graph_name} channel is empty.`);
    return this.value as Value;
  }

  override isAvailable(): boolean {
    return this.present;
  }

  checkpoint(): Value | undefined {
    return this.present ? this.value : undefined;
  }

  protected restored<C extends SingleValue<Value>>(made: C, checkpoint: Value | undefined): C {
    if (checkpoint !== undefined) {
      made.value = checkpoint;
      made.present = true;
    }
    return made;
  }
}

/**
 * A key without a reducer: keeps the last value; two writes in one step are a conflict
 * (`InvalidUpdateError`, code `INVALID_CONCURRENT_GRAPH_UPDATE`).
 *
 * @example
 * const c = new LastValue<number>(() => 0);
 * c.update([5]); c.get(); // 5
 */
export class LastValue<Value = unknown> extends SingleValue<Value> {
  lc_graph_name = "LastValue";

  constructor(initialValueFactory?: () => Value) {
    super(initialValueFactory);
  }

  update(values: Value[]): boolean {
    return this.set(values, true);
  }

  override get hasReducer(): boolean {
    return false;
  }

  fromCheckpoint(checkpoint?: Value): this {
    return this.restored(new LastValue(this.initialValueFactory), checkpoint) as this;
  }
}

/**
 * Keeps the last value written in a step; a step without writes empties it.
 *
 * @example
 * const c = new AnyValue<number>();
 * c.update([1, 2]); c.get(); // 2
 */
export class AnyValue<Value = unknown> extends SingleValue<Value> {
  lc_graph_name = "AnyValue";

  update(values: Value[]): boolean {
    if (values.length === 0) {
      const had = this.present;
      this.present = false;
      this.value = undefined;
      return had;
    }
    return this.set(values, false);
  }

  fromCheckpoint(checkpoint?: Value): this {
    return this.restored(new AnyValue<Value>(), checkpoint) as this;
  }
}

/**
 * Holds a value for one step only: the next step's update (with or without writes) replaces or
 * clears it. `guard` (default true) refuses two writes in one step.
 *
 * @example
 * const c = new EphemeralValue<string>();
 * c.update(["now"]); c.update([]); c.isAvailable(); // false
 */
export class EphemeralValue<Value = unknown> extends SingleValue<Value> {
  lc_graph_name = "EphemeralValue";

  constructor(readonly guard = true) {
    super();
  }

  update(values: Value[]): boolean {
    if (values.length === 0) {
      const had = this.present;
      this.present = false;
      this.value = undefined;
      return had;
    }
    return this.set(values, this.guard);
  }

  override get hasReducer(): boolean {
    return !this.guard;
  }

  fromCheckpoint(checkpoint?: Value): this {
    return this.restored(new EphemeralValue<Value>(this.guard), checkpoint) as this;
  }
}

/** Options of {@link UntrackedValueChannel}. */
export interface UntrackedValueOptions<Value> {
  /** Refuse two writes in one step (default true). */
  guard?: boolean;
  initialValueFactory?: () => Value;
}

/**
 * A value that lives only while the run does: never checkpointed, so a restored run starts from
 * the initial value (or empty).
 *
 * @example
 * const c = new UntrackedValueChannel<number>({ initialValueFactory: () => 0 });
 * c.checkpoint(); // undefined
 */
export class UntrackedValueChannel<Value = unknown> extends SingleValue<Value> {
  lc_graph_name = "UntrackedValue";
  readonly guard: boolean;

  constructor(private readonly options: UntrackedValueOptions<Value> = {}) {
    super(options.initialValueFactory);
    this.guard = options.guard ?? true;
  }

  update(values: Value[]): boolean {
    return this.set(values, this.guard);
  }

  override get hasReducer(): boolean {
    return !this.guard;
  }

  override checkpoint(): undefined {
    return undefined;
  }

  fromCheckpoint(_checkpoint?: Value): this {
    return new UntrackedValueChannel(this.options) as this;
  }
}
