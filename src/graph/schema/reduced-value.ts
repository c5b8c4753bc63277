import type { StandardSchemaLike } from "./standard-schema.js";

const REDUCED = Symbol.for("langgraph.state.reduced_value");

/** Options of `ReducedValue`: the reducer, and the schema of what nodes write when it differs. */
export interface ReducedValueInit<Value, Input> {
  reducer: (current: Value, next: Input) => Value;
  /** The schema of an update (default: the value schema). */
  inputSchema?: StandardSchemaLike<Input>;
  jsonSchemaExtra?: Record<string, unknown>;
}

/**
 * A `StateSchema` key whose writes are folded in by a reducer (LangGraph 1.x's API). The value
 * schema's default (e.g. `z.array(z.string()).default(() => [])`) is the value before any write.
 *
 * @example
 * const State = new StateSchema({
 *   log: new ReducedValue(z.array(z.string()).default(() => []), {
 *     reducer: (a, b) => a.concat(b),
 *   }),
 * });
 */
export class ReducedValue<Value = unknown, Input = Value> {
  readonly [REDUCED] = true as const;
  readonly reducer: (current: Value, next: Input) => Value;
  readonly inputSchema: StandardSchemaLike<unknown>;
  readonly jsonSchemaExtra: Record<string, unknown> | undefined;
  /** Type only: the value nodes read. */
  declare ValueType: Value;
  /** Type only: the update nodes write. */
  declare InputType: Input;

  constructor(
    readonly valueSchema: StandardSchemaLike<Value>,
    init: ReducedValueInit<Value, Input>,
  ) {
    this.reducer = init.reducer;
    this.inputSchema = init.inputSchema ?? valueSchema;
    this.jsonSchemaExtra = init.jsonSchemaExtra;
  }

  /** True for a `ReducedValue` (of this or another copy of the library). */
  static isInstance(value: unknown): value is ReducedValue {
    return typeof value === "object" && value !== null && REDUCED in value;
  }
}
