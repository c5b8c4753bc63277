import { randomUUID } from "node:crypto";
import { INTERRUPT } from "../constants.js";
import type { RunConfig, StreamMode } from "../types.js";
import { EventLog } from "./event-log.js";
import { StreamChannel } from "./stream-channel.js";

/** One event of a v3 run stream (LangGraph.js's `ProtocolEvent`). */
export interface ProtocolEvent {
  type: "event";
  /** Increases by one per event of the run. */
  seq: number;
  /** `values`, `updates`, `custom`, `tasks`, `checkpoints`, `lifecycle`, or `custom:<channel>`. */
  method: string;
  /** `node`: on `messages` events, the node whose model (or output) it is. */
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

/**
 * Set (true) in the config `GraphRunStream` streams a graph with: its `messages` and `tools`
 * modes then report in the protocol's shape, each event under the full namespace of the task
 * that made it (as LangGraph.js's v3 stream).
 */
export const PROTOCOL_STREAM = Symbol.for("keel.protocolStream");

/** A `tools` event of a v3 run (LangGraph.js's `ToolsEventData`). */
export type ToolsEventData =
  | { event: "tool-started"; tool_call_id: string; tool_name: string; input: unknown }
  | { event: "tool-output-delta"; tool_call_id: string; delta: string }
  | { event: "tool-finished"; tool_call_id: string; output: unknown }
  | { event: "tool-error"; tool_call_id: string; message: string };

/**
 * A user-supplied observer of a run's events: `init` returns what is merged into
 * `run.extensions`, `process` sees each event (false drops it), `finalize` runs when the run ends.
 */
export interface StreamTransformer<Projection = Record<string, unknown>> {
  init(): Projection;
  process(event: ProtocolEvent): boolean;
  finalize?(): void;
  fail?(error: unknown): void;
}

/** Options of `streamEvents(input, { version: "v3", … })`, besides the run's config. */
export interface StreamEventsOptions extends RunConfig {
  version: "v3";
  /** `"text/event-stream"`: the stream yields the events encoded as SSE bytes. */
  encoding?: "text/event-stream";
  transformers?: Array<() => StreamTransformer<Record<string, unknown>>>;
}

/** An interrupt a run paused on, as `run.interrupts` lists it. */
export interface InterruptPayload {
  interruptId: string | undefined;
  payload: unknown;
}

/** The part of a compiled graph a run stream drives. */
export interface StreamableGraph {
  stream(input: unknown, config: RunConfig): Promise<AsyncIterableIterator<unknown>>;
}

/**
 * The modes a v3 run streams (LangGraph.js leaves `debug` out: `checkpoints` + `tasks` carry it).
 * `messages` and `tools` come from LangChain callbacks, which cost a run nothing until a LangChain
 * model or tool runs in it.
 */
const V3_MODES: StreamMode[] = [
  "values",
  "updates",
  "custom",
  "tasks",
  "checkpoints",
  "messages",
  "tools",
];

/** Events of one namespace and below: a subgraph's own view of the run. */
export class SubgraphRunStream implements AsyncIterable<ProtocolEvent> {
  readonly events = new EventLog<ProtocolEvent>();
  constructor(
    /** The subgraph's node name. */
    readonly name: string,
    /** How many subgraphs of the same name started before it in this run. */
    readonly index: number,
    readonly namespace: string[],
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<ProtocolEvent> {
    return this.events[Symbol.asyncIterator]();
  }
}

/** `run.values`: awaited, the final state; iterated, each state the run went through. */
export interface ValuesView extends PromiseLike<Record<string, unknown>>, AsyncIterable<unknown> {}

/**
 * A v3 run stream (`graph.streamEvents(input, { version: "v3" })`): the run's protocol events in
 * order, and projections of them (`output`, `values`, `interrupts`, `subgraphs`, `extensions`).
 * The run starts at once and is read into logs, so each view can be read at any time, in full.
 */
export class GraphRunStream implements AsyncIterable<ProtocolEvent> {
  readonly events = new EventLog<ProtocolEvent>();
  readonly output: Promise<Record<string, unknown> | undefined>;
  readonly values: ValuesView;
  readonly subgraphs = new EventLog<SubgraphRunStream>();
  readonly extensions: Record<string, unknown> = {};
  /** True once the run paused on an interrupt. */
  interrupted = false;
  readonly interrupts: InterruptPayload[] = [];
  private readonly controller = new AbortController();
  private readonly valueLog = new EventLog<unknown>();
  private seq = 0;
  private readonly transformers: StreamTransformer<Record<string, unknown>>[] = [];
  private readonly channels: StreamChannel<unknown>[] = [];
  private readonly started = new Map<string, SubgraphRunStream | undefined>();
  private readonly subgraphCounts = new Map<string, number>();
  /** A `values` chunk waiting for the checkpoint saved after it (sent before it, as LangGraph.js). */
  private held: { namespace: string[]; data: unknown } | undefined;
  private readonly lastCheckpoint = new Map<string, string>();
  private readonly steps = new Map<string, number>();
  private last: Record<string, unknown> | undefined;

  constructor(graph: StreamableGraph, input: unknown, options: StreamEventsOptions) {
    const { version: _version, encoding: _encoding, transformers, ...config } = options;
    for (const make of transformers ?? []) {
      const transformer = make();
      this.transformers.push(transformer);
      for (const [key, value] of Object.entries(transformer.init())) {
        this.extensions[key] = value;
        if (value instanceof StreamChannel) {
          this.channels.push(value);
          const name = value.channelName;
          if (name !== undefined)
            value.forward = (data) => this.append([], `custom:${name}`, data, false);
        }
      }
    }
    const signal = config.signal
      ? AbortSignal.any([config.signal, this.controller.signal])
      : this.controller.signal;
    const runConfig: RunConfig = {
      ...config,
      signal,
      streamMode: V3_MODES,
      subgraphs: true,
    };
    (runConfig as Record<symbol, unknown>)[PROTOCOL_STREAM] = true;
    this.output = this.pump(graph, input, runConfig);
    this.output.catch(() => {});
    const output = this.output;
    const log = this.valueLog;
    this.values = {
      // biome-ignore lint/suspicious/noThenProperty: `run.values` is awaitable, as in LangGraph.js.
      then: (resolve, reject) => output.then((value) => value ?? {}).then(resolve, reject) as never,
      [Symbol.asyncIterator]: () => log[Symbol.asyncIterator](),
    };
  }

  /** Cancels the run (its nodes' `config.signal` fires). */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  [Symbol.asyncIterator](): AsyncIterator<ProtocolEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  private async pump(
    graph: StreamableGraph,
    input: unknown,
    config: RunConfig,
  ): Promise<Record<string, unknown> | undefined> {
    let failure: { value: unknown } | undefined;
    this.append([], "lifecycle", { event: "running", graph_name: "root" });
    try {
      for await (const chunk of await graph.stream(input, config)) {
        const [namespace, mode, data] = chunk as [string[], StreamMode, unknown];
        this.take(namespace, mode, data);
      }
      this.flushHeld();
      this.completeAll();
      this.append([], "lifecycle", { event: "completed", graph_name: "root" });
      for (const transformer of this.transformers) transformer.finalize?.();
    } catch (error) {
      failure = { value: error };
      this.append([], "lifecycle", { event: "failed", graph_name: "root" });
      for (const transformer of this.transformers) transformer.fail?.(error);
    }
    for (const channel of this.channels) channel.close();
    for (const sub of this.started.values()) sub?.events.close(failure);
    this.subgraphs.close();
    this.valueLog.close();
    this.events.close(failure);
    if (failure) throw failure.value;
    return this.last;
  }

  /** One chunk of the run (`[namespace, mode, data]`) as protocol events. */
  private take(namespace: string[], mode: StreamMode, data: unknown): void {
    if (mode === "checkpoints") {
      const held = this.held;
      // Only a checkpoint that follows a values chunk is paired with it (the input's is not).
      if (!held || key(held.namespace) !== key(namespace)) return;
      this.held = undefined;
      this.sendCheckpoint(namespace, data as Record<string, unknown>);
      this.append(namespace, "values", held.data);
      return;
    }
    this.flushHeld();
    this.enter(namespace);
    if (mode === "values") {
      const state = data as Record<string, unknown>;
      // A pause is reported as is, with no checkpoint of its own (as LangGraph.js).
      if (Object.hasOwn(state, INTERRUPT)) {
        this.append(namespace, "values", state);
        return;
      }
      if (namespace.length === 0) {
        this.last = state;
        this.valueLog.push(state);
      }
      this.held = { namespace, data: state };
    } else if (mode === "updates") {
      for (const [node, values] of Object.entries(data as Record<string, unknown>)) {
        if (node === INTERRUPT && namespace.length === 0) {
          this.interrupted = true;
          for (const item of values as Array<{ id?: string; value?: unknown }>)
            this.interrupts.push({ interruptId: item.id, payload: item.value });
        }
        this.append(namespace, "updates", { node, values });
      }
    } else if (mode === "messages") {
      const [event, metadata] = data as [Record<string, unknown>, Record<string, unknown>];
      const node = metadata?.langgraph_node;
      // A model's events carry its run's id (a client joins them to the model call).
      const runId = metadata?.run_id;
      const payload = typeof runId === "string" ? { ...event, run_id: runId } : event;
      this.append(
        namespace,
        "messages",
        payload,
        true,
        typeof node === "string" ? node : undefined,
      );
    } else if (mode === "tools") {
      this.append(namespace, "tools", toolsEvent(data as Record<string, unknown>));
    } else if (mode === "custom") {
      this.append(namespace, "custom", { payload: data });
    } else if (mode === "tasks") {
      const task = data as { id?: string; name?: string; result?: unknown };
      if ("result" in task) this.complete([...namespace, `${task.name}:${task.id}`]);
      this.append(namespace, "tasks", data);
    }
  }

  private flushHeld(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    const ns = key(held.namespace);
    const step = (this.steps.get(ns) ?? -1) + 1;
    this.sendCheckpoint(held.namespace, {
      config: { configurable: { checkpoint_id: randomUUID() } },
      metadata: { source: step === 0 ? "input" : "loop", step },
    });
    this.append(held.namespace, "values", held.data);
  }

  private sendCheckpoint(namespace: string[], payload: Record<string, unknown>): void {
    const ns = key(namespace);
    const config = payload.config as { configurable?: { checkpoint_id?: string } } | undefined;
    const metadata = (payload.metadata ?? {}) as { source?: string; step?: number };
    const id = config?.configurable?.checkpoint_id ?? randomUUID();
    const step = metadata.step ?? (this.steps.get(ns) ?? -1) + 1;
    this.steps.set(ns, step);
    const data: Record<string, unknown> = { id, step, source: metadata.source ?? "loop" };
    const parent = this.lastCheckpoint.get(ns);
    if (parent !== undefined) data.parent_id = parent;
    this.lastCheckpoint.set(ns, id);
    this.append(namespace, "checkpoints", data);
  }

  /** Announces each subgraph namespace the first time it shows (`lifecycle` `started`). */
  private enter(namespace: string[]): void {
    for (let depth = 1; depth <= namespace.length; depth++) {
      const prefix = namespace.slice(0, depth);
      const ns = key(prefix);
      if (this.started.has(ns)) continue;
      const name = graphName(prefix);
      let sub: SubgraphRunStream | undefined;
      if (depth === 1) {
        const index = this.subgraphCounts.get(name) ?? 0;
        this.subgraphCounts.set(name, index + 1);
        sub = new SubgraphRunStream(name, index, prefix);
      }
      this.started.set(ns, sub);
      if (sub) this.subgraphs.push(sub);
      this.append(prefix, "lifecycle", { event: "started", graph_name: name });
    }
  }

  /** A subgraph's task finished: it and what it started are `completed`. */
  private complete(namespace: string[]): void {
    const ns = key(namespace);
    if (!this.started.has(ns)) return;
    this.flushHeld();
    for (const [other, sub] of [...this.started]) {
      if (other !== ns && !other.startsWith(`${ns}|`)) continue;
      const prefix = other.split("|");
      this.append(prefix, "lifecycle", { event: "completed", graph_name: graphName(prefix) });
      this.started.delete(other);
      sub?.events.close();
    }
  }

  private completeAll(): void {
    for (const ns of [...this.started.keys()])
      if (this.started.has(ns)) this.complete(ns.split("|"));
  }

  private append(
    namespace: string[],
    method: string,
    data: unknown,
    transform = true,
    node?: string,
  ): void {
    const params: ProtocolEvent["params"] = { namespace, timestamp: Date.now(), data };
    if (node !== undefined) params.node = node;
    const event: ProtocolEvent = { type: "event", seq: this.seq++, method, params };
    if (transform) for (const t of this.transformers) if (!t.process(event)) return;
    this.events.push(event);
    if (namespace.length > 0) this.started.get(namespace[0]!)?.events.push(event);
  }
}

/** A `tools` stream chunk (`on_tool_start`, …) as the protocol's tool event. */
function toolsEvent(chunk: Record<string, unknown>): ToolsEventData {
  const tool_call_id = String(chunk.toolCallId ?? "");
  switch (chunk.event) {
    case "on_tool_start":
      return {
        event: "tool-started",
        tool_call_id,
        tool_name: String(chunk.name ?? "unknown"),
        input: chunk.input,
      };
    case "on_tool_event":
      return {
        event: "tool-output-delta",
        tool_call_id,
        delta: typeof chunk.data === "string" ? chunk.data : JSON.stringify(chunk.data ?? ""),
      };
    case "on_tool_end":
      return { event: "tool-finished", tool_call_id, output: chunk.output };
    default: {
      const error = chunk.error as { message?: unknown } | undefined;
      const message =
        typeof error?.message === "string" ? error.message : String(chunk.error ?? "unknown error");
      return { event: "tool-error", tool_call_id, message };
    }
  }
}

function key(namespace: string[]): string {
  return namespace.join("|");
}

/** A namespace's graph name: its last segment's node name (`node:taskId`). */
function graphName(namespace: string[]): string {
  const last = namespace[namespace.length - 1] ?? "";
  const colon = last.indexOf(":");
  return colon < 0 ? last : last.slice(0, colon);
}

/** The events of a run as `text/event-stream` bytes (`event: <method>`, `data: <json>`). */
export async function* encodeEventStream(
  events: AsyncIterable<ProtocolEvent>,
): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const event of events) {
    yield encoder.encode(
      `id: ${event.seq}\nevent: ${event.method}\ndata: ${JSON.stringify(event.params.data)}\n\n`,
    );
  }
}
