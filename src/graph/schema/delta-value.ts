import type { DeltaReducer } from "../channels/public/index.js";
import type { StandardSchemaLike } from "./standard-schema.js";

const DELTA = Symbol.for("langgraph.state.delta_value");

/** Options of `DeltaValue`: the reducer over a step's writes, and how often to save a snapshot. */
export interface DeltaValueInit<Value, Input> {
  reducer: DeltaReducer<Value, Input>;
  /** The schema of an update (default: the value schema). */
  inputSchema?: StandardSchemaLike<Input>;
  /** Updates between full snapshots in saved checkpoints (default 1000). */
  snapshotFrequency?: number;
  jsonSchemaExtra?: Record<string, unknown>;
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
export class DeltaValue<Value = unknown, Input = Value> {
  readonly [DELTA] = true as const;
  readonly reducer: DeltaReducer<Value, Input>;
  readonly inputSchema: StandardSchemaLike<unknown>;
  readonly snapshotFrequency: number | undefined;
  readonly jsonSchemaExtra: Record<string, unknown> | undefined;
  /** Type only: the value nodes read. */
  declare ValueType: Value;
  /** Type only: the update nodes write. */
  declare InputType: Input;

  constructor(
    readonly valueSchema: StandardSchemaLike<Value>,
    init: DeltaValueInit<Value, Input>,
  ) {
    this.reducer = init.reducer;
    this.inputSchema = init.inputSchema ?? valueSchema;
    this.snapshotFrequency = init.snapshotFrequency;
    this.jsonSchemaExtra = init.jsonSchemaExtra;
  }

  /** True for a `DeltaValue` (of this or another copy of the library). */
  static isInstance(value: unknown): value is DeltaValue {
    return typeof value === "object" && value !== null && DELTA in value;
  }
}
