import type * as LcRunnables from "@langchain/core/runnables";
import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import { loadOptionalPeer } from "../../core/index.js";
import type { RunConfig } from "../types.js";

/** The graph methods LangChain's event stream drives. */
export interface EventSource {
  readonly name: string;
  invoke(input: never, config?: RunConfig): Promise<unknown>;
  stream(input: never, config?: RunConfig): Promise<AsyncIterableIterator<unknown>>;
}

/** `streamEvents(…, { version: "v2" })` options besides the run's config. */
export interface StreamEventsV2Options extends RunConfig {
  version: "v2";
}

/** Which events LangChain's v2 stream keeps (by run name, type or tag). */
export interface StreamEventsV2Filter {
  includeNames?: string[];
  includeTypes?: string[];
  includeTags?: string[];
  excludeNames?: string[];
  excludeTypes?: string[];
  excludeTags?: string[];
}

type RunnableClass = typeof LcRunnables.Runnable;

/**
 * LangChain's v2 event stream (`on_chain_start`, `on_chat_model_stream`, …) of a graph run, made
 * by LangChain itself: the graph is wrapped in a `Runnable` whose `stream` is the graph's, so
 * `Runnable.streamEvents` adds its event handler to the run's callbacks and the graph's tracing
 * (see RunTrace) reports the graph, its tasks and what they call. Needs `@langchain/core`, loaded
 * here on first use.
 *
 * @example
 * for await (const event of streamEventsV2(graph, input, { version: "v2" })) console.log(event.event);
 */
export function streamEventsV2(
  graph: EventSource,
  input: unknown,
  options: StreamEventsV2Options,
  filter?: StreamEventsV2Filter,
): IterableReadableStream<StreamEvent> {
  const { Runnable } = loadOptionalPeer<{ Runnable: RunnableClass }>("@langchain/core/runnables");
  class GraphRunnable extends Runnable<unknown, unknown> {
    lc_namespace = ["keel", "graph"];

    constructor() {
      super();
      this.name = graph.name;
    }

    override invoke(value: unknown, config?: RunConfig): Promise<unknown> {
      return graph.invoke(value as never, config);
    }

    // LangChain's event stream reads the run's chunks through `stream` (`on_chain_stream`).
    override async stream(value: unknown, config?: RunConfig) {
      return abortedWithReason(await graph.stream(value as never, config), config?.signal) as never;
    }
  }
  return new GraphRunnable().streamEvents(input, { ...options, version: "v2" } as never, filter);
}

/**
 * The run's chunks; when its signal aborted it, the signal's own reason is what is thrown (rather
 * than Keel's `ABORTED` error), which is how LangChain's event stream tells its own cancellation
 * (a reader leaving early) from a failure.
 */
async function* abortedWithReason(
  chunks: AsyncIterableIterator<unknown>,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown> {
  try {
    yield* chunks;
  } catch (error) {
    if (signal?.aborted && signal.reason !== undefined) throw signal.reason;
    throw error;
  }
}
