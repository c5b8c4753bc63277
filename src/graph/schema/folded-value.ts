import type { StandardSchemaLike } from "./standard-schema.js";

/** What every folded `StateSchema` field is given: its reducer, update schema and schema extras. */
export interface FoldedValueInit<Input, Reducer> {
  reducer: Reducer;
  /** The schema of an update (default: the value schema). */
  inputSchema?: StandardSchemaLike<Input>;
  jsonSchemaExtra?: Record<string, unknown>;
}

/** A `StateSchema` field whose writes a reducer folds in: `ReducedValue` and `DeltaValue`. */
export abstract class FoldedValue<Value, Input, Reducer> {
  readonly reducer: Reducer;
  readonly inputSchema: StandardSchemaLike<unknown>;
  readonly jsonSchemaExtra: Record<string, unknown> | undefined;
  /** Type only: the value nodes read. */
  declare ValueType: Value;
  /** Type only: the update nodes write. */
  declare InputType: Input;

  constructor(
    readonly valueSchema: StandardSchemaLike<Value>,
    init: FoldedValueInit<Input, Reducer>,
  ) {
    this.reducer = init.reducer;
    this.inputSchema = init.inputSchema ?? valueSchema;
    this.jsonSchemaExtra = init.jsonSchemaExtra;
  }
}
