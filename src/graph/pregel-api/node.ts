import { KeelError } from "../../core/index.js";
import {
  ChannelWrite,
  type ChannelWriteEntry,
  PASSTHROUGH,
  type WriteMapper,
} from "./channel-write.js";

/** A step of a node: a function of the previous step's output, or a Runnable (`invoke`). */
export type PregelStep =
  | ((input: never, config: never) => unknown)
  | { invoke(input: unknown, config?: unknown): unknown };

/**
 * A node of a low-level {@link Pregel} graph: the channels it reads (`channels`), those whose
 * update makes it run (`triggers`), and the steps its input goes through, writers included.
 * Built with `Channel.subscribeTo(...)`, extended with `pipe` and `join`.
 */
export class PregelNode {
  constructor(
    /** One channel name: the node's input is its value; several: an object of their values. */
    readonly channels: string | string[],
    readonly triggers: string[],
    readonly steps: readonly PregelStep[] = [],
    readonly tags: readonly string[] = [],
  ) {}

  /** The node with one more step after the others (a `Channel.writeTo` writer, or any step). */
  pipe(step: PregelStep): PregelNode {
    return new PregelNode(this.channels, this.triggers, [...this.steps, step], this.tags);
  }

  /** Reads more channels without being triggered by them (the input becomes an object). */
  join(channels: string[]): PregelNode {
    if (!Array.isArray(this.channels)) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "join() needs a node subscribed to a list of channels.",
        {
          hint: 'Subscribe with an array: Channel.subscribeTo(["input"]).join(["total"]).',
        },
      );
    }
    return new PregelNode([...this.channels, ...channels], this.triggers, this.steps, this.tags);
  }

  /** The writer steps of the node. */
  get writers(): ChannelWrite[] {
    return this.steps.filter((s): s is ChannelWrite => s instanceof ChannelWrite);
  }
}

/**
 * LangGraph.js's `Channel` helpers for building {@link Pregel} nodes.
 *
 * @example
 * const one = Channel.subscribeTo("input").pipe((x: number) => x + 1).pipe(Channel.writeTo(["output"]));
 */
export const Channel = {
  /** A node triggered by (and reading) `channels`; `key` names a single channel's value in an object input. */
  subscribeTo(
    channels: string | string[],
    options: { key?: string; tags?: string[] } = {},
  ): PregelNode {
    const names = Array.isArray(channels) ? channels : [channels];
    if (options.key !== undefined && Array.isArray(channels)) {
      throw new KeelError("INVALID_ARGUMENT", "subscribeTo: `key` needs a single channel.", {
        hint: 'Pass one channel name with a key, e.g. Channel.subscribeTo("input", { key: "x" }).',
      });
    }
    const node = new PregelNode(
      options.key === undefined ? channels : names,
      names,
      [],
      options.tags ?? [],
    );
    if (options.key === undefined) return node;
    const key = options.key;
    const channel = names[0]!;
    return node.pipe((input: Record<string, unknown>) => ({ [key]: input[channel] }));
  },

  /**
   * A writer: the node's output goes to each of `channels`; each key of `writes` gets a fixed
   * value, or the output mapped through a function or Runnable (skipped when that gives nothing).
   */
  writeTo(channels: string[], writes: Record<string, unknown> = {}): ChannelWrite {
    const entries: ChannelWriteEntry[] = channels.map((channel) => ({
      channel,
      value: PASSTHROUGH,
      skipNone: false,
    }));
    for (const [channel, value] of Object.entries(writes)) {
      if (typeof value === "function" || isRunnable(value)) {
        entries.push({ channel, value: PASSTHROUGH, skipNone: true, mapper: value as WriteMapper });
      } else entries.push({ channel, value, skipNone: false });
    }
    return new ChannelWrite(entries);
  },
};

function isRunnable(value: unknown): value is { invoke(input: unknown): unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { invoke?: unknown }).invoke === "function"
  );
}
