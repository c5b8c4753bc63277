import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import type { CheckpointConfig } from "../../checkpoint/base/index.js";
import { Annotation } from "../annotation.js";
import { isCommand } from "../command.js";
import type { CompiledStateGraph } from "../compiled-graph.js";
import { INTERRUPT } from "../constants.js";
import { isThenable } from "../pregel/node-output.js";
import type { StreamEventsV2Filter, StreamEventsV2Options } from "../tracing/index.js";
import type { RunConfig, StateSnapshot } from "../types.js";
import type { AddNodeOptions, PathMap } from "./declarations.js";
import type { GetGraphOptions } from "./drawable.js";
import { type CompileOptions, StateGraph } from "./state-graph.js";

/** The one state key a `Graph` runs on: the value passed from node to node. */
const VALUE = "__root__";

type Values = Record<string, unknown>;
type Inner = CompiledStateGraph<Values, Values>;

/** A node of a `Graph`: takes the value its predecessor returned, returns the next one. */
export type GraphNodeFunction = (input: never, config: RunConfig) => unknown;

function wrapResult(result: unknown): unknown {
  if (isCommand(result)) return result;
  return { [VALUE]: result };
}

/**
 * LangGraph.js's `Graph`: a graph without state channels. Each node gets the value the node
 * before it returned (the first gets the input) and returns the next; `invoke` returns the last.
 * It runs on Keel's engine as a state graph with one last-value key, so checkpoints, interrupts
 * and retries work as in a `StateGraph`.
 *
 * @example
 * const graph = new Graph()
 *   .addNode("double", (x: number) => x * 2)
 *   .addEdge(START, "double")
 *   .addEdge("double", END)
 *   .compile();
 * await graph.invoke(21); // 42
 */
export class Graph {
  private readonly builder = new StateGraph(Annotation.Root({ [VALUE]: Annotation<unknown>() }));

  addNode(name: string, fn: GraphNodeFunction, options?: AddNodeOptions): this {
    const call = fn as (input: unknown, config: RunConfig) => unknown;
    const node = (state: Values, config: RunConfig) => {
      const result = call(state[VALUE], config);
      return isThenable(result) ? Promise.resolve(result).then(wrapResult) : wrapResult(result);
    };
    this.builder.addNode(name, node as never, options);
    return this;
  }

  addEdge(source: string | string[], target: string): this {
    this.builder.addEdge(source, target);
    return this;
  }

  /** Routes on the value (a path function gets what the source node returned). */
  addConditionalEdges(
    source: string,
    path: (input: never, config: RunConfig) => unknown,
    pathMap?: PathMap,
  ): this {
    const route = path as (input: unknown, config: RunConfig) => unknown;
    this.builder.addConditionalEdges(
      source,
      ((state: Values, config: RunConfig) => route(state[VALUE], config)) as never,
      pathMap,
    );
    return this;
  }

  setEntryPoint(name: string): this {
    this.builder.setEntryPoint(name);
    return this;
  }

  setFinishPoint(name: string): this {
    this.builder.setFinishPoint(name);
    return this;
  }

  compile(options: CompileOptions = {}): CompiledGraph {
    return new CompiledGraph(this.builder.compile(options) as unknown as Inner);
  }
}

/** A compiled {@link Graph}: `invoke`, `stream`, `batch` and the thread methods, on plain values. */
export class CompiledGraph {
  constructor(private readonly inner: Inner) {}

  /** Runs the graph; returns the last node's value (`null` input continues a paused thread). */
  async invoke(input: unknown, config?: RunConfig): Promise<unknown> {
    const result = await this.inner.invoke(toInput(input) as Values, config);
    if (Object.hasOwn(result, INTERRUPT)) return result;
    return result[VALUE];
  }

  /** `stream`: `values` chunks are the value; `updates` are `{ node: value }`. */
  async stream(input: unknown, config: RunConfig = {}): Promise<AsyncIterableIterator<unknown>> {
    const inner = await this.inner.stream(toInput(input) as Values, config);
    const modes = config.streamMode ?? "updates";
    const tagged = Array.isArray(modes);
    const single = tagged ? undefined : modes;
    async function* values(): AsyncGenerator<unknown> {
      for await (const chunk of inner) {
        if (tagged) {
          const [mode, data] = chunk as [string, unknown];
          yield [mode, unwrap(mode, data)];
        } else yield unwrap(single as string, chunk);
      }
    }
    return values();
  }

  /**
   * LangChain's callback event stream (`version: "v2"`, needs `@langchain/core`), as for a
   * `StateGraph`; the events carry the engine's one-key state.
   *
   * @example
   * for await (const event of graph.streamEvents(21, { version: "v2" })) console.log(event.event);
   */
  streamEvents(
    input: unknown,
    options: StreamEventsV2Options,
    filter?: StreamEventsV2Filter,
  ): IterableReadableStream<StreamEvent> {
    return this.inner.streamEvents(toInput(input) as Values, options, filter);
  }

  /** The graph as LangChain's drawable `Graph` (see `CompiledStateGraph.getGraph`). */
  getGraph(options?: GetGraphOptions): ReturnType<Inner["getGraph"]> {
    return this.inner.getGraph(options);
  }

  batch(inputs: unknown[], config?: RunConfig | RunConfig[]): Promise<unknown[]> {
    return Promise.all(
      inputs.map((input, index) =>
        this.invoke(input, Array.isArray(config) ? config[index] : config),
      ),
    );
  }

  async getState(config: RunConfig): Promise<StateSnapshot<Values>> {
    return this.inner.getState(config);
  }

  getStateHistory(config: RunConfig): AsyncIterableIterator<StateSnapshot<Values>> {
    return this.inner.getStateHistory(config) as AsyncIterableIterator<StateSnapshot<Values>>;
  }

  /** Sets the value as if `asNode` had returned it. */
  updateState(config: RunConfig, value: unknown, asNode?: string): Promise<CheckpointConfig> {
    return this.inner.updateState(config, { [VALUE]: value }, asNode);
  }
}

function toInput(input: unknown): unknown {
  if (input === null || input === undefined || isCommand(input)) return input;
  return { [VALUE]: input };
}

function unwrap(mode: string, data: unknown): unknown {
  if (typeof data !== "object" || data === null) return data;
  if (mode === "values") return Object.hasOwn(data, VALUE) ? (data as Values)[VALUE] : data;
  if (mode === "updates") {
    const out: Values = {};
    for (const [node, update] of Object.entries(data as Values))
      out[node] =
        typeof update === "object" && update !== null && Object.hasOwn(update, VALUE)
          ? (update as Values)[VALUE]
          : update;
    return out;
  }
  return data;
}
