import type { Channel } from "../channel.js";
import { EngineChannel } from "./engine-channel.js";

/**
 * LangGraph.js's channel contract (`@langchain/langgraph/channels`): a channel takes the writes
 * of one super-step at once (`update`), answers `get`, and round-trips through `checkpoint` /
 * `fromCheckpoint`. An instance is also a state key: `Annotation.Root({ seen: new Topic() })`
 * uses it as the key's channel (each run starts from an empty copy).
 *
 * @example
 * class Counter extends BaseChannel<number, number, number> {
 *   lc_graph_name = "Counter";
 *   private n = 0;
 *   update(values: number[]) { this.n += values.length; return values.length > 0; }
 *   get() { return this.n; }
 *   checkpoint() { return this.n; }
 *   fromCheckpoint(n?: number) { const c = new Counter(); c.n = n ?? 0; return c as this; }
 * }
 */
export abstract class BaseChannel<Value = unknown, Update = unknown, Snapshot = unknown> {
  /** The channel's kind, as LangGraph.js names it. */
  abstract lc_graph_name: string;
  /** Type only: the value `get` returns. */
  declare ValueType: Value;
  /** Type only: what a node may write. */
  declare UpdateType: Update;

  /** Applies one step's writes (in task order); true when the channel changed. */
  abstract update(values: Update[]): boolean;
  /** The value; throws `EmptyChannelError` when there is none. */
  abstract get(): Value;
  /** What to store in a checkpoint (undefined: nothing to store). */
  abstract checkpoint(): Snapshot | undefined;
  /** A new channel of the same kind and options holding `checkpoint`'s value. */
  abstract fromCheckpoint(checkpoint?: Snapshot): this;

  /** True when `get` would return a value. */
  isAvailable(): boolean {
    try {
      this.get();
      return true;
    } catch {
      return false;
    }
  }

  /** Marks the value as read by the task it triggered; true when that changed it. */
  consume(): boolean {
    return false;
  }

  /** Called when the run has nothing left to do; true when that changed it. */
  finish(): boolean {
    return false;
  }

  /** True when `other` is a channel of the same kind and options. */
  equals(other: BaseChannel): boolean {
    return other.constructor === this.constructor;
  }

  /** True when concurrent writes combine instead of conflicting. */
  get hasReducer(): boolean {
    return true;
  }

  /** The engine's view of this channel for one run, as a state key (see {@link EngineChannel}). */
  createChannel(_key: string): Channel {
    return new EngineChannel(this.fromCheckpoint(undefined));
  }
}

/** True for a LangGraph-style channel object (also across module copies). */
export function isBaseChannel(value: unknown): value is BaseChannel {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BaseChannel).update === "function" &&
    typeof (value as BaseChannel).fromCheckpoint === "function" &&
    typeof (value as BaseChannel).checkpoint === "function"
  );
}
