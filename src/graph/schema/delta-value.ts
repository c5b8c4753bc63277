import type { DeltaReducer } from "../channels/public/index.js";
import { FoldedValue, type FoldedValueInit } from "./folded-value.js";
import type { StandardSchemaLike } from "./standard-schema.js";

const DELTA = Symbol.for("langgraph.state.delta_value");

/** Options of `DeltaValue`: the reducer over a step's writes, and how often to save a snapshot. */
export interface DeltaValueInit<Value, Input>
  extends FoldedValueInit<Input, DeltaReducer<Value, Input>> {
  /** Updates between full snapshots in saved checkpoints (default 1000). */
  snapshotFrequency?: number;
}

/**
 * A `StateSchema` key kept in a `DeltaChannel`: checkpoints save each step's writes and, every
 * `snapshotFrequency` updates, the whole value (LangGraph 1.x's API). The reducer gets a step's
 * writes together; the value schema's default is the value before any write.
 *
 * @example
 * const State = new StateSchema({
 *   log: new DeltaValue(z.array(z.string()).default(() => []), {
 *     reducer: (log, writes) => log.concat(...writes),
 *   }),
 * });
 */
export class DeltaValue<Value = unknown, Input = Value> extends FoldedValue<
  Value,
  Input,
  DeltaReducer<Value, Input>
> {
  readonly [DELTA] = true as const;
  readonly snapshotFrequency: number | undefined;

  constructor(valueSchema: StandardSchemaLike<Value>, init: DeltaValueInit<Value, Input>) {
    super(valueSchema, init);
    this.snapshotFrequency = init.snapshotFrequency;
  }

  /** True for a `DeltaValue` (of this or another copy of the library). */
  static isInstance(value: unknown): value is DeltaValue {
    return typeof value === "object" && value !== null && DELTA in value;
  }
}
