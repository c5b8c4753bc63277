import { KeelError } from "../../core/index.js";

/** Stands for "the value the node produced" in a {@link ChannelWrite} entry. */
export const PASSTHROUGH = Symbol.for("keel.pregel.passthrough");

/** Something `Channel.writeTo` can map the node's output through: a function or a Runnable. */
export type WriteMapper =
  | ((value: never) => unknown)
  | { invoke(value: unknown, config?: unknown): unknown };

/** One write a {@link ChannelWrite} makes: `value` (or the mapped output) into `channel`. */
export interface ChannelWriteEntry {
  channel: string;
  value: unknown;
  /** Skip the write when the value is `undefined` (mapped writes). */
  skipNone: boolean;
  mapper?: WriteMapper;
}

/** The config key a running {@link Pregel} task receives its write sink under. */
export const PREGEL_SEND = "__pregel_send";

type Send = (writes: Array<[string, unknown]>) => void;

/**
 * The writer step of a low-level Pregel node (`Channel.writeTo`): records writes for the task
 * that runs it and passes its input through. It is also invokable on its own (as LangChain's
 * `RunnableEach` calls it), finding the task's write sink in `config.configurable`.
 *
 * @example
 * const node = Channel.subscribeTo("input").pipe((x: number) => x + 1).pipe(Channel.writeTo(["output"]));
 */
export class ChannelWrite {
  readonly lc_runnable = true;

  constructor(readonly writes: ChannelWriteEntry[]) {}

  async invoke(
    input: unknown,
    config?: { configurable?: Record<string, unknown> },
  ): Promise<unknown> {
    const send = config?.configurable?.[PREGEL_SEND] as Send | undefined;
    if (typeof send !== "function") {
      throw new KeelError("INVALID_ARGUMENT", "A ChannelWrite ran outside a Pregel task.", {
        hint: "Use Channel.writeTo(...) as a step of a node of a Pregel graph.",
      });
    }
    const out: Array<[string, unknown]> = [];
    for (const entry of this.writes) {
      let value = entry.value === PASSTHROUGH ? input : entry.value;
      if (entry.mapper !== undefined) value = await applyMapper(entry.mapper, value, config);
      if (entry.skipNone && value === undefined) continue;
      out.push([entry.channel, value]);
    }
    send(out);
    return input;
  }

  async batch(
    inputs: unknown[],
    config?: { configurable?: Record<string, unknown> },
  ): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const input of inputs) out.push(await this.invoke(input, config));
    return out;
  }
}

function applyMapper(mapper: WriteMapper, value: unknown, config: unknown): unknown {
  return typeof mapper === "function"
    ? (mapper as (value: unknown) => unknown)(value)
    : mapper.invoke(value, config);
}

export function isChannelWrite(value: unknown): value is ChannelWrite {
  return value instanceof ChannelWrite;
}
