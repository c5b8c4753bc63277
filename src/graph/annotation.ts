import {
  type BinaryOperator,
  BinaryOperatorAggregate,
  type Channel,
  LastValue,
} from "./channels/index.js";

/**
 * One key of a graph's state: how to make its channel, plus phantom types for its value and the
 * update a node may write to it.
 */
export interface StateChannel<Value = unknown, Update = Value> {
  readonly ValueType: Value;
  readonly UpdateType: Update;
  /** Makes the key's channel for one run. */
  createChannel(key: string): Channel;
  /** True when the key has a reducer (concurrent writes combine instead of conflicting). */
  readonly hasReducer: boolean;
}

/** A state schema: key → channel spec. */
export type StateDefinition = Record<string, StateChannel<unknown, unknown>>;

/** The full state a node reads. */
export type StateType<SD extends StateDefinition> = { [K in keyof SD]: SD[K]["ValueType"] };

/** The partial state a node returns. */
export type UpdateType<SD extends StateDefinition> = { [K in keyof SD]?: SD[K]["UpdateType"] };

/** Options of the reducer form: `Annotation<T>({ reducer, default })`. */
export interface ReducerOptions<Value, Update> {
  reducer: BinaryOperator<Value, Update>;
  /** The value before the first write (e.g. `() => []`). */
  default?: () => Value;
}

/** Options of the default-only form: `Annotation<T>({ default })` (last value wins). */
export interface DefaultOptions<Value> {
  default: () => Value;
}

/** The older LangGraph.js spelling of the reducer form: `{ value: reducer, default }`. */
export interface LegacyReducerOptions<Value, Update> {
  value: BinaryOperator<Value, Update>;
  default?: () => Value;
}

/** The node function type of a state schema. */
export type NodeFunction<State, Update, Config = unknown> = (
  state: State,
  config: Config,
) => Update | Promise<Update>;

/**
 * A whole state schema: pass it to `new StateGraph(State)`. Its `State`, `Update` and `Node`
 * members exist only as types: `typeof State.State`.
 */
export class AnnotationRoot<SD extends StateDefinition> {
  /** Type only: the state nodes read. */
  declare State: StateType<SD>;
  /** Type only: the update nodes return. */
  declare Update: UpdateType<SD>;
  /** Type only: a node function of this schema. */
  declare Node: NodeFunction<StateType<SD>, UpdateType<SD>>;

  constructor(readonly spec: SD) {}
}

function makeChannel<Value, Update>(
  create: (key: string) => Channel,
  hasReducer: boolean,
): StateChannel<Value, Update> {
  return { createChannel: create, hasReducer } as StateChannel<Value, Update>;
}

/**
 * Declares one state key. Three forms, as in LangGraph.js and seed 002:
 *
 * @example
 * Annotation<number>();                                              // last value wins
 * Annotation<string[]>((a, b) => a.concat(b));                       // reducer (seed 002 form)
 * Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }); // LangGraph form
 */
export function Annotation<Value>(): StateChannel<Value, Value>;
export function Annotation<Value, Update = Value>(
  reducer: BinaryOperator<Value, Update>,
): StateChannel<Value, Update>;
export function Annotation<Value, Update = Value>(
  options: ReducerOptions<Value, Update>,
): StateChannel<Value, Update>;
export function Annotation<Value, Update = Value>(
  options: LegacyReducerOptions<Value, Update>,
): StateChannel<Value, Update>;
export function Annotation<Value>(options: DefaultOptions<Value>): StateChannel<Value, Value>;
export function Annotation<Value, Update = Value>(
  arg?:
    | BinaryOperator<Value, Update>
    | ReducerOptions<Value, Update>
    | LegacyReducerOptions<Value, Update>
    | DefaultOptions<Value>,
): StateChannel<Value, Update> {
  if (arg === undefined) return makeChannel((key) => new LastValue(key), false);
  if (typeof arg === "function") {
    const reducer = arg as BinaryOperator<unknown, unknown>;
    return makeChannel((key) => new BinaryOperatorAggregate(key, reducer), true);
  }
  const reducer = ("reducer" in arg ? arg.reducer : "value" in arg ? arg.value : undefined) as
    | BinaryOperator<unknown, unknown>
    | undefined;
  const initial = arg.default;
  if (reducer)
    return makeChannel((key) => new BinaryOperatorAggregate(key, reducer, initial), true);
  return makeChannel((key) => new LastValue(key, initial), false);
}

/**
 * Combines keys into a state schema.
 *
 * @example
 * const State = Annotation.Root({
 *   messages: Annotation<string[]>((a, b) => a.concat(b)),
 *   step: Annotation<number>(),
 * });
 * type S = typeof State.State; // { messages: string[]; step: number }
 */
Annotation.Root = <SD extends StateDefinition>(spec: SD): AnnotationRoot<SD> =>
  new AnnotationRoot(spec);
