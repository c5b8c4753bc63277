import { KeelError } from "../core/index.js";
import {
  type BinaryOperator,
  BinaryOperatorAggregate,
  type Channel,
  LastValue,
} from "./channels/index.js";
import { type BaseChannel, isBaseChannel } from "./channels/public/index.js";

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

/**
 * `Annotation<T>` passed uncalled, as LangGraph's docs write it: a last-value key. Its type is the
 * `Annotation` function instantiated at `T`, whose last overload (no arguments) returns the channel.
 */
export type UncalledAnnotation<Value = unknown> = () => StateChannel<Value, Value>;

/** A state schema: key → channel spec (or an uncalled `Annotation<T>`). */
export type StateDefinition = Record<
  string,
  StateChannel<unknown, unknown> | UncalledAnnotation<unknown>
>;

type ChannelOf<C> =
  C extends StateChannel<infer V, infer U>
    ? StateChannel<V, U>
    : C extends () => StateChannel<infer V, infer U>
      ? StateChannel<V, U>
      : never;

/** The full state a node reads. */
export type StateType<SD extends StateDefinition> = {
  [K in keyof SD]: ChannelOf<SD[K]>["ValueType"];
};

/** The partial state a node returns. */
export type UpdateType<SD extends StateDefinition> = {
  [K in keyof SD]?: ChannelOf<SD[K]>["UpdateType"];
};

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

  /** Every key as a channel spec (an uncalled `Annotation<T>` becomes `Annotation<T>()`). */
  readonly spec: Record<string, StateChannel>;

  constructor(spec: SD) {
    this.spec = toChannels(spec);
  }
}

/** Turns a state definition's entries into channel specs; refuses what is neither. */
export function toChannels(spec: StateDefinition): Record<string, StateChannel> {
  const out: Record<string, StateChannel> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (isStateChannel(value)) out[key] = value;
    else if (isBaseChannel(value)) out[key] = fromBaseChannel(value);
    else if (value === (Annotation as unknown)) out[key] = Annotation();
    else
      throw new KeelError(
        "INVALID_ARGUMENT",
        `State key "${key}" is not an Annotation: write Annotation<T>() or Annotation<T>({ reducer, default }).`,
        { details: { key } },
      );
  }
  return out;
}

/** True for a channel spec made by `Annotation(...)` (or any object with `createChannel`). */
export function isStateChannel(value: unknown): value is StateChannel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as StateChannel).createChannel === "function"
  );
}

/** A LangGraph-style channel object used as a state key: each run gets an empty copy of it. */
function fromBaseChannel(channel: BaseChannel): StateChannel {
  return makeChannel((key) => channel.createChannel(key), channel.hasReducer);
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
// Last, so that the type of an uncalled `Annotation<T>` infers `T` from it (see UncalledAnnotation).
export function Annotation<Value>(): StateChannel<Value, Value>;
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
