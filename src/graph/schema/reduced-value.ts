import { FoldedValue, type FoldedValueInit } from "./folded-value.js";

const REDUCED = Symbol.for("langgraph.state.reduced_value");

/** Options of `ReducedValue`: the reducer, and the schema of what nodes write when it differs. */
export type ReducedValueInit<Value, Input> = FoldedValueInit<
  Input,
  (current: Value, next: Input) => Value
>;

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
export class ReducedValue<Value = unknown, Input = Value> extends FoldedValue<
  Value,
  Input,
  (current: Value, next: Input) => Value
> {
  readonly [REDUCED] = true as const;

  /** True for a `ReducedValue` (of this or another copy of the library). */
  static isInstance(value: unknown): value is ReducedValue {
    return typeof value === "object" && value !== null && REDUCED in value;
  }
}
