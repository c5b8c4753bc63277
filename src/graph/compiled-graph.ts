import type { StreamEvent } from "@langchain/core/tracers/log_stream";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import type {
  BaseCache,
  BaseCheckpointSaver,
  BaseStore,
  CheckpointConfig,
  CheckpointListOptions,
  CheckpointTuple,
} from "../checkpoint/base/index.js";
import { KeelError } from "../core/index.js";
import type { GraphDeclaration } from "./builder/declarations.js";
import { drawGraph, type GetGraphOptions } from "./builder/drawable.js";
import { Command, isCommand } from "./command.js";
import { INTERRUPT } from "./constants.js";
import { GraphInterrupt, type Interrupt } from "./errors.js";
import { currentScope, type InterruptScope } from "./interrupt.js";
import { preloadLangChain, schemaUsesReducer } from "./messages/langchain-messages.js";
import { messagesDeltaReducer, messagesStateReducer } from "./messages/messages-reducer.js";
import {
  hasMessagesHandler,
  type MessageStreamChunk,
  MessagesStream,
  taskNamespace,
  withHandler,
  withoutMessagesHandler,
} from "./messages/messages-stream.js";
import { ToolsStream } from "./messages/tools-stream.js";
import { cacheHits } from "./pregel/cache-hits.js";
import { fillDeltaValues } from "./pregel/delta-saves.js";
import { CONFIG_KEY_CHECKPOINTER } from "./pregel/execute.js";
import { GraphLoop, type LoopHooks, type LoopOutcome, type Replay } from "./pregel/loop.js";
import { snapshotOf } from "./pregel/snapshot.js";
import { buildSpec, type GraphSpec } from "./pregel/spec.js";
import { namespaceOf, type SubgraphSink, streamHooks } from "./pregel/stream-hooks.js";
import { StreamQueue } from "./pregel/stream-queue.js";
import { Task } from "./pregel/task.js";
import type { TimeoutPolicy } from "./pregel/timeout.js";
import {
  applySuperStep,
  checkSuperSteps,
  defaultWriter,
  type SuperStepUpdate,
} from "./pregel/update.js";
import {
  encodeEventStream,
  GraphRunStream,
  PROTOCOL_STREAM,
  type StreamEventsOptions,
} from "./stream-events/index.js";
import { addSubgraphStates, graphAt, lastBefore, savedAfter } from "./subgraph-state.js";
import {
  type EventSource,
  mergeCallbacks,
  RunTrace,
  type StreamEventsV2Filter,
  type StreamEventsV2Options,
  streamEventsV2,
  wantsTrace,
} from "./tracing/index.js";
import {
  type CachePolicy,
  type RetryPolicy,
  type RunConfig,
  STREAM_MODES,
  type StateSnapshot,
  type StreamMode,
} from "./types.js";

/** A node of a compiled graph as `graph.nodes` lists it. */
export interface CompiledNode {
  retryPolicy: RetryPolicy | undefined;
  cachePolicy: CachePolicy | undefined;
  timeout: TimeoutPolicy | undefined;
  errorHandlerNode: string | undefined;
  /** Runs the node alone on `input`; resolves to what it returned. */
  invoke(input: unknown, config?: RunConfig): Promise<unknown>;
}

interface CompiledOptions {
  checkpointer: BaseCheckpointSaver | boolean | undefined;
  cache?: BaseCache | undefined;
  interruptBefore: string[];
  interruptAfter: string[];
  name: string;
  store?: BaseStore | undefined;
  /** `withConfig`: what every call's config is merged over. */
  defaults?: RunConfig | undefined;
  /** The `StateGraph` that compiled this graph. */
  builder?: object | undefined;
}

/** What a parent run hands the subgraph it calls (kept off the user-visible config object). */
interface ParentLink {
  saver: BaseCheckpointSaver | undefined;
  task: InterruptScope;
  /** Set when the parent is streamed with `subgraphs: true`. */
  stream?: SubgraphSink | undefined;
  /**
   * Set when the parent is streamed with `"messages"`: the subgraph's nodes' messages join it (its
   * models' tokens reach it through the callbacks the subgraph inherits).
   */
  messages?: MessagesStream | undefined;
  /** Set when the parent run replays from a past checkpoint. */
  replay?: Replay | undefined;
}
const parentLinks = new WeakMap<RunConfig, ParentLink>();

/**
 * A runnable graph, made by `StateGraph.compile()`. Same methods as LangGraph.js's
 * `CompiledStateGraph`: `invoke`, `stream`, `getState`, `getStateHistory`, `updateState`.
 *
 * @example
 * const result = await graph.invoke({ topic: "cats" }, { configurable: { thread_id: "t1" } });
 * for await (const chunk of await graph.stream(input, { streamMode: "updates" })) console.log(chunk);
 */
export class CompiledStateGraph<State = Record<string, unknown>, Update = Partial<State>> {
  readonly spec: GraphSpec;
  readonly checkpointer: BaseCheckpointSaver | undefined;
  /** As a subgraph: `true` keeps its own state across calls, `false` never checkpoints. */
  readonly subgraphPersistence: boolean | undefined;
  readonly name: string;
  /** The long-term store given to `compile`, handed to nodes as `config.store`. */
  readonly store: BaseStore | undefined;
  /** Most milliseconds a step may take; its nodes' `config.signal` fires and the run rejects. */
  stepTimeout: number | undefined = undefined;
  private readonly interruptBefore: ReadonlySet<string>;
  private readonly interruptAfter: ReadonlySet<string>;
  private readonly outputKeys: readonly string[] | undefined;
  private readonly validateInput: ((input: unknown) => Promise<unknown>) | undefined;

  /** True when a key holds LangChain messages: LangChain is loaded (natively) before each call. */
  private readonly usesMessages: boolean;
  private readonly declaration: GraphDeclaration;
  private readonly options: CompiledOptions;

  constructor(declaration: GraphDeclaration, options: CompiledOptions) {
    this.declaration = declaration;
    this.options = options;
    this.spec = buildSpec(declaration);
    if (options.cache) cacheNodes(this.spec, options.cache);
    this.usesMessages = schemaUsesReducer(
      declaration.schema,
      messagesStateReducer,
      messagesDeltaReducer,
    );
    const saver = options.checkpointer;
    this.checkpointer = typeof saver === "boolean" ? undefined : saver;
    this.subgraphPersistence = typeof saver === "boolean" ? saver : undefined;
    this.interruptBefore = new Set(options.interruptBefore);
    this.interruptAfter = new Set(options.interruptAfter);
    this.name = options.name;
    this.outputKeys = declaration.outputKeys;
    this.store = options.store;
    this.validateInput = declaration.validateInput;
  }

  /**
   * The same graph with `config` as the default of every call (LangGraph.js's `withConfig`): a
   * call's own config is merged over it (`configurable`, `metadata` key by key, `tags` added).
   *
   * @example
   * const limited = graph.withConfig({ recursionLimit: 5, tags: ["batch"] });
   */
  withConfig(config: RunConfig): CompiledStateGraph<State, Update> {
    const defaults = this.options.defaults ? mergeConfig(this.options.defaults, config) : config;
    return new CompiledStateGraph<State, Update>(this.declaration, { ...this.options, defaults });
  }

  /**
   * Runs the graph once per input, concurrently (LangGraph.js's `batch`); `config` is one config
   * for all or one per input.
   *
   * @example
   * const [a, b] = await graph.batch([{ n: 1 }, { n: 2 }]);
   */
  batch(
    inputs: Array<Update | State | null | undefined | Command>,
    config?: RunConfig | RunConfig[],
  ): Promise<Array<State & { __interrupt__?: Interrupt[] }>> {
    return Promise.all(
      inputs.map((input, index) =>
        this.invoke(input, Array.isArray(config) ? config[index] : config),
      ),
    );
  }

  /**
   * The same graph on another checkpointer (interrupts and name kept): how a host such as
   * `keel serve` runs a graph a module compiled without one on its own durable saver.
   *
   * @example
   * const durable = graph.withCheckpointer(SqliteSaver.fromStore(store));
   */
  withCheckpointer(checkpointer: BaseCheckpointSaver): CompiledStateGraph<State, Update> {
    return new CompiledStateGraph<State, Update>(this.declaration, {
      ...this.options,
      checkpointer,
    });
  }

  /**
   * The nodes with the policies they run with (`setNodeDefaults` applied); `invoke` runs one node
   * alone on a state of your choosing and returns what it returned (LangGraph.js's
   * `graph.nodes.x.invoke`), without edges, reducers or a checkpoint.
   *
   * @example
   * const update = await graph.nodes.summarize.invoke({ messages });
   */
  get nodes(): Record<string, CompiledNode> {
    const out: Record<string, CompiledNode> = {};
    for (const node of this.spec.nodes) {
      const { action, subgraph } = node;
      out[node.name] = {
        retryPolicy: node.retryPolicy,
        cachePolicy: node.cachePolicy,
        timeout: node.timeout,
        errorHandlerNode: node.errorHandlerNode,
        invoke: async (input, config = {}) =>
          action
            ? action(input as never, config)
            : (subgraph as unknown as { invoke: CompiledNode["invoke"] }).invoke(input, config),
      };
    }
    return out;
  }

  /**
   * The `StateGraph` this graph was compiled from, as LangGraph.js's `graph.builder` (e.g.
   * `graph.builder._schemaRuntimeDefinition`, the zod object or `StateSchema` of its state).
   */
  get builder(): object | undefined {
    return this.options.builder;
  }

  /** Drops every cached node result (`compile({ cache })`). */
  async clearCache(): Promise<void> {
    await this.options.cache?.clear(this.spec.nodes.map((node) => [NODE_CACHE_NS, node.name]));
  }

  /** The state keys, in schema order. */
  /**
   * The graph as LangChain's drawable `Graph` (needs `@langchain/core`): `drawMermaid()` gives
   * its Mermaid text, as LangGraph.js's `getGraph()` does. `xray` draws subgraphs inside.
   *
   * @example
   * console.log(graph.getGraph().drawMermaid());
   */
  getGraph(options?: GetGraphOptions): ReturnType<typeof drawGraph> {
    return drawGraph(
      this.declaration,
      { before: this.interruptBefore, after: this.interruptAfter },
      options,
    );
  }

  /** {@link getGraph}, as a promise (LangGraph.js's `getGraphAsync`). */
  async getGraphAsync(options?: GetGraphOptions): Promise<ReturnType<typeof drawGraph>> {
    return this.getGraph(options);
  }

  get stateKeys(): readonly string[] {
    return this.spec.stateKeys;
  }

  /**
   * Runs the graph to the end (or to an interrupt) and returns the final state. Pass `null` (or a
   * `Command({ resume })`) with a thread id to continue a paused or finished thread.
   */
  async invoke(
    input: Update | State | null | undefined | Command,
    config: RunConfig = {},
  ): Promise<State & { __interrupt__?: Interrupt[] }> {
    if (this.usesMessages) await preloadLangChain();
    const defaults = this.options.defaults;
    config = runConfig(defaults ? mergeConfig(defaults, config) : config);
    const nested = nestedConfig(config);
    if (nested)
      return (await this.runAsSubgraph(input, nested)) as State & { __interrupt__?: Interrupt[] };
    const into = await this.travelInto(config);
    const trace = wantsTrace(config.callbacks)
      ? await RunTrace.start(config, this.name, input)
      : undefined;
    const loop = this.createLoop(
      into?.config ?? config,
      {},
      undefined,
      undefined,
      undefined,
      trace,
    );
    let outcome: LoopOutcome;
    try {
      await loop.load(await this.checkInput(input, config));
      if (into && loop.replay) loop.replay = { ...loop.replay, into: into.target };
      outcome = await loop.run();
    } catch (error) {
      await trace?.fail(error);
      throw error;
    }
    const output = this.pickOutput(loop.output(outcome));
    await trace?.end(this.pickOutput(loop.stateView()));
    return output as State & { __interrupt__?: Interrupt[] };
  }

  /**
   * Runs the graph and yields what `streamMode` asks for after each step: `"values"` (the whole
   * state), `"updates"` (`{ node: update }` per task), `"debug"` (task and checkpoint events), or
   * several modes as `[mode, chunk]` pairs.
   */
  async stream(
    input: Update | State | null | undefined | Command,
    config: RunConfig = {},
  ): Promise<AsyncIterableIterator<unknown>> {
    // streamEvents v3: messages and tools events under the namespace of the task that made them.
    const protocol = (config as Record<symbol, unknown>)[PROTOCOL_STREAM] === true;
    if (protocol) {
      config = { ...config };
      delete (config as Record<symbol, unknown>)[PROTOCOL_STREAM];
    }
    // Token streaming builds LangChain message chunks; v3's events and the tools mode need nothing.
    if (this.usesMessages || (!protocol && config.streamMode?.includes("messages")))
      await preloadLangChain();
    const defaults = this.options.defaults;
    config = runConfig(defaults ? mergeConfig(defaults, config) : config);
    // Inside a node (its config carries the task id) a stream defaults to `values`, as in
    // LangGraph.js: the caller iterates the subgraph's states, not its updates.
    const modes =
      config.streamMode ??
      (config.configurable?.__pregel_task_id !== undefined ? "values" : "updates");
    const list: StreamMode[] = Array.isArray(modes) ? modes : [modes];
    const unknown = list.filter((mode) => !STREAM_MODES.has(mode));
    if (unknown.length > 0) {
      throw new KeelError(
        "STREAM_MODE_UNKNOWN",
        `Unknown stream mode ${unknown.map((m) => JSON.stringify(m)).join(", ")}: a stream would never yield it.`,
        {
          details: { unknown, supported: [...STREAM_MODES] },
          hint: `Use one or several of: ${[...STREAM_MODES].join(", ")}.`,
        },
      );
    }
    // Traced for the caller's callbacks, not for the handler the messages mode adds below.
    const traced = wantsTrace(config.callbacks);
    // A reader that stops early (break out of for-await) cancels the run between steps.
    const stopped = new AbortController();
    const queue = new StreamQueue<unknown>(() => stopped.abort());
    const outer = config.signal;
    const forward = () => stopped.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    config = { ...config, signal: stopped.signal };
    const tagged = Array.isArray(modes);
    const subgraphs = config.subgraphs === true;
    const emitAt = (namespace: string[], mode: StreamMode, chunk: unknown) =>
      queue.push(
        subgraphs
          ? tagged
            ? [namespace, mode, chunk]
            : [namespace, chunk]
          : tagged
            ? [mode, chunk]
            : chunk,
      );
    const root = namespaceOf(config.configurable?.checkpoint_ns);
    const hooks = streamHooks(list, (mode, chunk) => emitAt(root, mode, chunk));
    if (hooks.custom) {
      config.writer = hooks.custom;
      delete hooks.custom;
    }
    if (list.includes("messages")) {
      const emit = protocol
        ? (chunk: MessageStreamChunk) => emitAt(taskNamespace(chunk[1]), "messages", chunk)
        : (chunk: MessageStreamChunk) => emitAt(root, "messages", chunk);
      const messages = new MessagesStream(emit, config.tags, protocol);
      // A graph streamed inside a node of a graph streaming messages inherits that stream's
      // handler. Its models report to one of the two, as in LangGraph.js: the outer one when the
      // run is traced (LangChain keeps the first handler of a kind), else the inner one.
      const inherited = !protocol && hasMessagesHandler(config.callbacks);
      if (!inherited) config.callbacks = withHandler(config.callbacks, messages.handler());
      else if (!traced)
        config.callbacks = withHandler(
          withoutMessagesHandler(config.callbacks),
          messages.handler(),
        );
      // v3 reads nodes' returned messages only in a graph whose state holds messages: other
      // graphs' steps are not scanned for them (models' messages still stream, by callback).
      if (!protocol || this.usesMessages) hooks.messages = messages;
    }
    if (list.includes("tools")) {
      // Tools report through the run's callbacks, which subgraphs inherit: one handler for all.
      const tools = new ToolsStream(
        (namespace, event) => emitAt(namespace, "tools", event),
        subgraphs ? undefined : root,
        protocol,
      );
      config.callbacks = withHandler(config.callbacks, tools.handler());
    }
    const sink: SubgraphSink | undefined = subgraphs
      ? { modes: list.filter((mode) => mode !== "messages" && mode !== "tools"), emit: emitAt }
      : undefined;
    const runConfig_ = config;
    (async () => {
      const trace = traced ? await RunTrace.start(runConfig_, this.name, input) : undefined;
      const loop = this.createLoop(runConfig_, hooks, undefined, sink, undefined, trace);
      try {
        await loop.load(await this.checkInput(input, runConfig_));
        await loop.run();
      } catch (error) {
        await trace?.fail(error);
        throw error;
      }
      await trace?.end(this.pickOutput(loop.stateView()));
    })()
      .finally(() => outer?.removeEventListener("abort", forward))
      .then(
        () => queue.close(),
        (error: unknown) => queue.close({ value: error }),
      );
    return queue;
  }

  /**
   * LangGraph.js's v3 event stream: the run's `values`, `updates`, `custom`, `tasks`,
   * `checkpoints` and subgraph `lifecycle` events as protocol events, with `output`, `values`,
   * `interrupts`, `subgraphs` and `extensions` views (see docs/graph.md). With
   * `encoding: "text/event-stream"` it yields the events as SSE bytes.
   *
   * @example
   * const run = await graph.streamEvents({ count: 0 }, { version: "v3" });
   * for await (const event of run) console.log(event.method, event.params.data);
   * console.log(await run.output);
   */
  streamEvents(
    input: Update | State | null | undefined | Command,
    options: StreamEventsV2Options,
    filter?: StreamEventsV2Filter,
  ): IterableReadableStream<StreamEvent>;
  streamEvents(
    input: Update | State | null | undefined | Command,
    options: StreamEventsOptions & { encoding: "text/event-stream" },
  ): Promise<AsyncGenerator<Uint8Array>>;
  streamEvents(
    input: Update | State | null | undefined | Command,
    options: StreamEventsOptions,
  ): Promise<GraphRunStream>;
  streamEvents(
    input: Update | State | null | undefined | Command,
    options: StreamEventsOptions | StreamEventsV2Options,
    filter?: StreamEventsV2Filter,
  ): IterableReadableStream<StreamEvent> | Promise<GraphRunStream | AsyncGenerator<Uint8Array>> {
    // v2 is LangChain's callback event stream, returned at once as LangGraph.js's (not awaited).
    if (options?.version === "v2")
      return streamEventsV2(this as unknown as EventSource, input, options, filter);
    if (options?.version !== "v3")
      return Promise.reject(
        new KeelError(
          "INVALID_ARGUMENT",
          `streamEvents supports versions "v2" and "v3", got ${JSON.stringify((options as { version?: unknown } | undefined)?.version)}.`,
          {
            hint: 'Pass { version: "v3" } for the run\'s protocol events, { version: "v2" } for LangChain callback events (needs @langchain/core).',
          },
        ),
      );
    const run = new GraphRunStream(this, input, options);
    return Promise.resolve(options.encoding === "text/event-stream" ? encodeEventStream(run) : run);
  }

  /**
   * Time travel straight into a subgraph (a config with a subgraph's `checkpoint_ns` and
   * `checkpoint_id`, as `getState(…, { subgraphs: true })` gives): the parent replays from its
   * checkpoint current when that subgraph checkpoint was saved, and the subgraph starts from it.
   * Undefined for any other config.
   */
  private async travelInto(
    config: RunConfig,
  ): Promise<{ config: RunConfig; target: { ns: string; checkpointId: string } } | undefined> {
    const configurable = config.configurable;
    const ns = configurable?.checkpoint_ns;
    const checkpointId = configurable?.checkpoint_id;
    if (!ns || !checkpointId || !this.checkpointer || graphAt(this, ns) === this) return undefined;
    const root = { configurable: { thread_id: configurable.thread_id, checkpoint_ns: "" } };
    const parent = await lastBefore(this.checkpointer, root, checkpointId);
    if (!parent) return undefined;
    return {
      config: {
        ...config,
        configurable: { ...configurable, checkpoint_ns: "", checkpoint_id: parent.checkpoint.id },
      },
      target: { ns, checkpointId },
    };
  }

  /**
   * A new input checked against the graph's `StateSchema` (when it has one), and the call's
   * `configurable` against its context schema (when it has one) first.
   */
  private checkInput(input: unknown, config: RunConfig): unknown {
    const validateContext = this.declaration.validateContext;
    if (validateContext)
      return validateContext(config.configurable ?? {}).then(() => this.checkState(input));
    return this.checkState(input);
  }

  private checkState(input: unknown): unknown {
    if (input === null || input === undefined || isCommand(input)) return input;
    const inputKeys = this.declaration.inputKeys;
    if (inputKeys) input = dropNonInputChannels(input, inputKeys, this.declaration.schema);
    return this.validateInput ? this.validateInput(input) : input;
  }

  /**
   * `invoke`'s result restricted to the output schema's keys (and `__interrupt__`); the values
   * stream shows the whole state, as LangGraph.js's does.
   */
  private pickOutput(state: Record<string, unknown>): Record<string, unknown> {
    const keys = this.outputKeys;
    if (!keys) return state;
    const out: Record<string, unknown> = {};
    for (const key of keys) if (Object.hasOwn(state, key)) out[key] = state[key];
    if (Object.hasOwn(state, INTERRUPT)) out[INTERRUPT] = state[INTERRUPT];
    return out;
  }

  /**
   * The state of a thread at its latest checkpoint (or at `configurable.checkpoint_id`). A config
   * whose `checkpoint_ns` is a subgraph's (from `tasks[i].state`) reads that subgraph's state.
   * With `{ subgraphs: true }`, each pending task of a subgraph node carries the subgraph's own
   * snapshot as `state` (otherwise the config to read it with), as in LangGraph.js.
   *
   * @example
   * const snapshot = await graph.getState(config, { subgraphs: true });
   * const inner = snapshot.tasks[0]?.state; // the paused subgraph's StateSnapshot
   */
  async getState(
    config: RunConfig,
    options: { subgraphs?: boolean } = {},
  ): Promise<StateSnapshot<State>> {
    const saver = this.requireSaver("getState");
    const graph = graphAt(this, config.configurable?.checkpoint_ns);
    return (await graph.stateAt(
      config,
      graph.checkpointer ?? saver,
      options.subgraphs === true,
    )) as StateSnapshot<State>;
  }

  /** `getState` on `saver`: also how a parent reads the state of a subgraph on its saver. */
  async stateAt(
    config: RunConfig,
    saver: BaseCheckpointSaver,
    subgraphs: boolean,
  ): Promise<StateSnapshot<State>> {
    if (this.usesMessages) await preloadLangChain();
    const tuple = await saver.getTuple(config);
    if (!tuple)
      return {
        values: {} as State,
        next: [],
        tasks: [],
        metadata: undefined,
        config,
        createdAt: undefined,
        parentConfig: undefined,
      };
    // As LangGraph.js: a thread's latest state shows the writes of its pending step's finished
    // tasks; a checkpoint asked for by id shows the checkpoint as saved.
    const latest = !config.configurable?.checkpoint_id;
    const filling = fillDeltaValues(this.spec, saver, tuple);
    if (filling) await filling;
    const snapshot = snapshotOf(this.createLoop(config, {}, saver), tuple, latest);
    await addSubgraphStates(this.spec, snapshot, saver, subgraphs);
    return snapshot as StateSnapshot<State>;
  }

  /**
   * Every checkpoint of a thread, newest first (`filter`, `before`, `limit` as in the saver); a
   * subgraph's `checkpoint_ns` lists that subgraph's checkpoints.
   */
  async *getStateHistory(
    config: RunConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<StateSnapshot<State>> {
    const saver = this.requireSaver("getStateHistory");
    const graph = graphAt(this, config.configurable?.checkpoint_ns);
    yield* graph.historyAt(config, graph.checkpointer ?? saver, options) as AsyncGenerator<
      StateSnapshot<State>
    >;
  }

  /** `getStateHistory` on `saver`. */
  async *historyAt(
    config: RunConfig,
    saver: BaseCheckpointSaver,
    options: CheckpointListOptions,
  ): AsyncGenerator<StateSnapshot<State>> {
    if (this.usesMessages) await preloadLangChain();
    // This graph's own namespace only: a subgraph's checkpoints are not states of this graph.
    const own = {
      ...config,
      configurable: {
        ...config.configurable,
        checkpoint_ns: config.configurable?.checkpoint_ns ?? "",
      },
    };
    for await (const tuple of saver.list(own, options)) {
      const filling = fillDeltaValues(this.spec, saver, tuple);
      if (filling) await filling;
      yield snapshotOf(this.createLoop(config, {}, saver), tuple, false) as StateSnapshot<State>;
    }
  }

  /**
   * Changes a thread's state by hand, as if `asNode` had returned `values` (its edges then decide
   * what runs next). Without `asNode`, the node that wrote the last step is used (START on a new
   * thread); after a parallel step that is ambiguous and refused. `"__input__"` saves `values` as
   * the next input; `null` as `"__end__"` ends the pending step; `"__copy__"` saves the checkpoint
   * again as a fork beside it (without its pending writes), then applies `values` given as
   * `[values, asNode]` pairs to the copy. Returns the new checkpoint's config.
   *
   * @example
   * await graph.updateState(config, { approved: true }, "review");
   * await graph.updateState(pastConfig, [[{ topic: "dogs" }, "__start__"]], "__copy__");
   */
  async updateState(
    config: RunConfig,
    values: Update | Record<string, unknown> | Array<[values: unknown, asNode: string]> | null,
    asNode?: string,
  ): Promise<CheckpointConfig> {
    return this.bulkUpdateState(config, [{ updates: [{ values, asNode }] }]);
  }

  /**
   * Several `updateState`s at once (LangGraph.js's `bulkUpdateState`): each superstep's updates
   * are applied together as one step and saved as one checkpoint, each superstep on the one
   * before. How a thread is rebuilt from a list of updates, e.g. a copy of another thread.
   *
   * @example
   * await graph.bulkUpdateState({ configurable: { thread_id: "copy" } }, [
   *   { updates: [{ values: { topic: "cats" }, asNode: "__input__" }] },
   *   { updates: [{ values: { a: 1 }, asNode: "left" }, { values: { b: 2 }, asNode: "right" }] },
   * ]);
   */
  async bulkUpdateState(
    config: RunConfig,
    supersteps: SuperStepUpdate[],
  ): Promise<CheckpointConfig> {
    const saver = this.requireSaver("updateState");
    checkSuperSteps(supersteps);
    // A subgraph's config (its checkpoint_ns) updates that subgraph's own state.
    const graph = graphAt(this, config.configurable?.checkpoint_ns);
    if (graph.usesMessages) await preloadLangChain();
    const target = graph.checkpointer ?? saver;
    let current: RunConfig = config;
    let saved: CheckpointConfig | undefined;
    for (const { updates } of supersteps) {
      const loop = graph.createLoop(current, {}, target);
      const tuple = await target.getTuple(current);
      const filling = fillDeltaValues(graph.spec, target, tuple);
      if (filling) await filling;
      saved = await applySuperStep(loop, tuple, updates, () => defaultWriter(target, tuple));
      current = { ...current, configurable: { ...current.configurable, ...saved.configurable } };
    }
    return saved!;
  }

  /** Runs this graph as a node of a parent graph (see `addNode(name, compiledGraph)`). */
  async runAsSubgraph(input: unknown, config: RunConfig): Promise<Record<string, unknown>> {
    if (this.usesMessages) await preloadLangChain();
    const link = parentLinks.get(config);
    const saver =
      this.subgraphPersistence === false ? undefined : (this.checkpointer ?? link?.saver);
    if (this.subgraphPersistence === false) config = withoutParentSaver(config);
    else if (this.subgraphPersistence === true) config = ownNamespace(config, link);
    // The parent passes its whole state (or a Send's args); the child takes the keys it has.
    let start: unknown = input;
    if (typeof input === "object" && input !== null && !Array.isArray(input) && !isCommand(input)) {
      const own: Record<string, unknown> = {};
      for (const key of this.spec.stateKeys)
        if (Object.hasOwn(input, key)) own[key] = (input as Record<string, unknown>)[key];
      start = own;
    }
    let startAt: { tuple: CheckpointTuple | undefined } | undefined;
    const replay = link?.replay;
    if (saver) {
      // The namespace is unique to the parent task, so an existing checkpoint means this task ran
      // before and paused: continue it, with the resume value the parent received.
      const existing = await saver.getTuple(config);
      if (replay?.into && replay.into.ns === config.configurable?.checkpoint_ns) {
        // Time travel into this subgraph: it continues from the checkpoint asked for.
        startAt = {
          tuple: await saver.getTuple({
            configurable: { ...config.configurable, checkpoint_id: replay.into.checkpointId },
          }),
        };
        start = null;
      } else if (
        existing &&
        (this.subgraphPersistence !== true || (await this.isPaused(config, existing)))
      ) {
        const fresh = link?.task.fresh;
        if (link) link.task.fresh = undefined;
        start = fresh ? new Command({ resume: fresh.value }) : null;
      } else if (existing && replay && savedAfter(existing, replay)) {
        // The parent replays from a past checkpoint: this subgraph's own state is taken as it
        // was then (nothing, if it had not run yet), as in LangGraph.js.
        startAt = { tuple: await lastBefore(saver, config, replay.from) };
      }
    }
    const sink = link?.stream;
    let hooks: LoopHooks = {};
    if (sink) {
      const namespace = namespaceOf(config.configurable?.checkpoint_ns);
      hooks = streamHooks(sink.modes, (mode, chunk) => sink.emit(namespace, mode, chunk));
    }
    if (link?.messages) hooks.messages = link.messages;
    const trace = wantsTrace(config.callbacks)
      ? await RunTrace.start(config, this.name, start)
      : undefined;
    const loop = this.createLoop(config, hooks, saver, sink, startAt, trace);
    loop.nested = true;
    // Its own subgraphs replay within the same window (checkpoint ids are ordered in time).
    loop.replay = replay;
    try {
      await loop.load(start);
      const outcome = await loop.run();
      // A static pause (interruptBefore/After, no interrupt values) pauses the parent too.
      if (outcome.interrupts) throw new GraphInterrupt(outcome.interrupts);
    } catch (error) {
      await trace?.fail(error);
      throw error;
    }
    await trace?.end(loop.stateView());
    return loop.stateView();
  }

  /** True when the thread's checkpoint has tasks left to run (it paused). */
  private isPaused(config: RunConfig, tuple: CheckpointTuple): boolean {
    const loop = this.createLoop(config, {}, this.checkpointer ?? parentLinks.get(config)?.saver);
    loop.restore(tuple);
    return loop.nextTasks().length > 0;
  }

  private createLoop(
    config: RunConfig,
    hooks: LoopHooks,
    saverOverride: BaseCheckpointSaver | undefined,
    sink?: SubgraphSink,
    startAt?: { tuple: CheckpointTuple | undefined },
    trace?: RunTrace,
  ): GraphLoop {
    const saver = saverOverride ?? this.checkpointer ?? parentLinks.get(config)?.saver;
    // After the parent link was read: it is keyed by the config object.
    if (this.store && config.store === undefined) config = { ...config, store: this.store };
    if (saver && !config.configurable?.thread_id) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "This graph has a checkpointer, so each call needs configurable.thread_id.",
        {
          hint: 'Pass { configurable: { thread_id: "…" } } as the second argument.',
        },
      );
    }
    const before =
      config.interruptBefore === "*"
        ? new Set(this.spec.nodeIndex.keys())
        : config.interruptBefore
          ? new Set(config.interruptBefore)
          : this.interruptBefore;
    const after =
      config.interruptAfter === "*"
        ? new Set(this.spec.nodeIndex.keys())
        : config.interruptAfter
          ? new Set(config.interruptAfter)
          : this.interruptAfter;
    const ns = config.configurable?.checkpoint_ns ?? "";
    const loop: GraphLoop = new GraphLoop({
      startAt,
      trace,
      sink,
      spec: this.spec,
      saver,
      config,
      interruptBefore: before,
      interruptAfter: after,
      hooks,
      stepTimeout: this.stepTimeout,
      subgraphConfig: (task) => {
        const childNs = `${ns ? `${ns}|` : ""}${task.node.name}:${task.taskId}`;
        const child: RunConfig = {
          ...config,
          configurable: { ...config.configurable, checkpoint_ns: childNs },
        };
        delete child.configurable!.checkpoint_id;
        // Where each enclosing graph is: the subgraph's checkpoints record it (`parents`).
        if (saver)
          child.configurable!.checkpoint_map = {
            ...(config.configurable?.checkpoint_map as Record<string, string> | undefined),
            [ns]: loop.persistence.checkpointId,
          };
        // The child's nodes write to the parent's custom stream.
        const writer = hooks.custom ?? config.writer;
        if (writer) child.writer = writer;
        const replay = loop.replay;
        const link: ParentLink = sink
          ? { saver, task, stream: sink, replay }
          : replay
            ? { saver, task, replay }
            : { saver, task };
        if (hooks.messages) link.messages = hooks.messages;
        parentLinks.set(child, link);
        return child;
      },
    });
    return loop;
  }

  private requireSaver(method: string): BaseCheckpointSaver {
    if (!this.checkpointer) {
      throw new KeelError("CHECKPOINTER_REQUIRED", `No checkpointer set: ${method} needs one.`, {
        hint: "Compile with one: builder.compile({ checkpointer: new MemorySaver() }).",
      });
    }
    return this.checkpointer;
  }
}

/** `config` over `defaults` (`withConfig`): objects merged key by key, tags added. */
function mergeConfig(defaults: RunConfig, config: RunConfig): RunConfig {
  const merged: RunConfig = { ...defaults, ...config };
  if (defaults.configurable || config.configurable)
    merged.configurable = { ...defaults.configurable, ...config.configurable };
  if (defaults.metadata || config.metadata)
    merged.metadata = { ...defaults.metadata, ...config.metadata };
  if (defaults.tags || config.tags)
    merged.tags = [...(defaults.tags ?? []), ...(config.tags ?? [])];
  if (defaults.callbacks && config.callbacks)
    merged.callbacks = mergeCallbacks(defaults.callbacks, config.callbacks);
  return merged;
}

/**
 * The config a call runs with: inside a running node, a call without one inherits the node's
 * (LangGraph.js passes it implicitly), so the graph runs as that task's subgraph and sees its
 * signal; `timeout` (ms) becomes part of the run's signal.
 */
export function runConfig(config: RunConfig): RunConfig {
  // A call with a thread of its own never inherits: no scope lookup on that common path.
  const scope = config.configurable?.thread_id === undefined ? currentScope() : undefined;
  const inherited = scope instanceof Task ? scope.config : undefined;
  if (inherited) {
    // The parent run's stream options are not the child's (LangGraph.js strips them too).
    const { streamMode: _mode, subgraphs: _subgraphs, ...rest } = inherited;
    if (config.configurable === undefined && config.signal === undefined)
      config = { ...rest, ...config, configurable: inherited.configurable };
    else if (config.configurable && config.configurable.thread_id === undefined) {
      // An explicit `configurable` without a thread of its own (an agent's defaults) is merged
      // over the node's, as LangGraph.js does, so the graph still runs nested under the task.
      config = {
        ...rest,
        ...config,
        configurable: { ...inherited.configurable, ...config.configurable },
        metadata: { ...inherited.metadata, ...config.metadata },
      };
    }
  }
  if (config.timeout !== undefined) {
    const timeout = AbortSignal.timeout(config.timeout);
    const signal = config.signal ? AbortSignal.any([config.signal, timeout]) : timeout;
    config = { ...config, signal };
    delete config.timeout;
  }
  return config;
}

/**
 * A graph invoked inside a running node with the node's config (nested invoke) runs as that
 * task's subgraph, as in LangGraph.js: on the parent's checkpointer, in the task's namespace, and
 * an `interrupt()` inside it pauses the parent. Undefined for an ordinary call.
 */
function nestedConfig(config: RunConfig): RunConfig | undefined {
  const configurable = config.configurable;
  if (!configurable || parentLinks.has(config)) return undefined;
  const task = currentScope();
  if (!task) return undefined;
  // The config of the running task (or one made from it): the graph nests under that task.
  const fromTask =
    CONFIG_KEY_CHECKPOINTER in configurable ||
    (task instanceof Task && configurable.__pregel_task_id === task.taskId);
  if (!fromTask) return undefined;
  const child: RunConfig = { ...config, configurable: { ...configurable } };
  delete child.configurable![CONFIG_KEY_CHECKPOINTER];
  delete child.configurable!.checkpoint_id;
  const saver = configurable[CONFIG_KEY_CHECKPOINTER] as BaseCheckpointSaver | undefined;
  const sink = task instanceof Task ? task.sink : undefined;
  parentLinks.set(child, sink ? { saver, task, stream: sink } : { saver, task });
  return child;
}

/** The cache namespace of a node's results: `[NODE_CACHE_NS, node name]`. */
const NODE_CACHE_NS = "__pregel_node";

/**
 * Wraps the action of every node with a `cachePolicy` so that the same input returns the saved
 * result without running it: done once at compile time, so nodes without one pay nothing.
 */
function cacheNodes(spec: GraphSpec, cache: BaseCache): void {
  for (const node of spec.nodes) {
    const policy = node.cachePolicy;
    const action = node.action as ((input: unknown, config: RunConfig) => unknown) | undefined;
    if (!policy || !action) continue;
    const ns = [NODE_CACHE_NS, node.name];
    node.isAsync = true;
    node.action = async (input: unknown, config: RunConfig) => {
      const key: [string[], string] = [ns, policy.keyFunc?.(input) ?? JSON.stringify(input) ?? ""];
      const [hit] = await cache.get([key]);
      if (hit) {
        cacheHits.add(config);
        return hit.value;
      }
      const result = await action(input, config);
      await cache.set([
        policy.ttl === undefined ? { key, value: result } : { key, value: result, ttl: policy.ttl },
      ]);
      return result;
    };
  }
}

/** A subgraph's config without the parent's checkpointer (`compile({ checkpointer: false })`). */
function withoutParentSaver(config: RunConfig): RunConfig {
  const child: RunConfig = { ...config };
  const link = parentLinks.get(config);
  if (link) parentLinks.set(child, { saver: undefined, task: link.task });
  return child;
}

/**
 * `compile({ checkpointer: true })`: the namespace drops the parent task's id (`node:<id>` →
 * `node`), so every call of the node continues the same subgraph thread.
 */
function ownNamespace(config: RunConfig, link: ParentLink | undefined): RunConfig {
  const ns = config.configurable?.checkpoint_ns ?? "";
  const segments = ns.split("|");
  const last = segments.pop() ?? "";
  const colon = last.indexOf(":");
  segments.push(colon === -1 ? last : last.slice(0, colon));
  const child: RunConfig = {
    ...config,
    configurable: { ...config.configurable, checkpoint_ns: segments.join("|") },
  };
  if (link) parentLinks.set(child, link);
  return child;
}

/**
 * A graph input without the channels its input schema lacks (an `output` schema's or a node input
 * schema's keys): LangGraph.js maps only the input schema's keys. Keys of no channel at all stay,
 * so an unknown key is still reported.
 */
function dropNonInputChannels(
  input: unknown,
  inputKeys: readonly string[],
  channels: Record<string, unknown>,
): unknown {
  if (typeof input !== "object" || Array.isArray(input)) return input;
  const values = input as Record<string, unknown>;
  const dropped = Object.keys(values).filter(
    (key) => Object.hasOwn(channels, key) && !inputKeys.includes(key),
  );
  if (dropped.length === 0) return input;
  const kept = { ...values };
  for (const key of dropped) delete kept[key];
  return kept;
}
