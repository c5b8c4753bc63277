/**
 * The slice of the LangGraph.js API the parity programs are written against, once. Each program
 * receives a `GraphApi` and is run twice: with Keel's package root and with `@langchain/langgraph`.
 * The types are deliberately loose (state is a plain record) so that both libraries fit the same
 * shape without either one's generics leaking into the programs.
 */
import * as langgraphModule from "@langchain/langgraph";
import * as langgraphChannels from "@langchain/langgraph/channels";
import * as langgraphPregel from "@langchain/langgraph/pregel";
import * as langgraphZod from "@langchain/langgraph/zod";
import * as langgraphZodSchema from "@langchain/langgraph/zod/schema";
import * as langgraphCheckpoint from "@langchain/langgraph-checkpoint";

/** A graph state as both libraries hand it to nodes and return it from `invoke`. */
export type Values = Record<string, unknown>;

export type StreamMode = "values" | "updates" | "debug" | "custom";

export interface RunConfig {
  configurable?: { thread_id?: string; checkpoint_id?: string; [key: string]: unknown };
  recursionLimit?: number;
  streamMode?: StreamMode | StreamMode[];
  signal?: AbortSignal;
  interruptBefore?: string[];
  interruptAfter?: string[];
  durability?: "sync" | "async" | "exit";
}

/** A node: reads the step's snapshot of the state, returns an update, a Command, or nothing. */
export type NodeFn = (state: Values, config: RunConfig) => unknown;

export interface TaskSnapshot {
  name: string;
  interrupts: readonly { id?: string; value?: unknown }[];
}

export interface StateSnapshotLike {
  values: Values;
  next: readonly string[];
  config: RunConfig;
  parentConfig?: RunConfig;
  metadata?: { step?: number; source?: string };
  tasks: readonly TaskSnapshot[];
  createdAt?: string;
}

export interface HistoryOptions {
  limit?: number;
  before?: RunConfig;
  filter?: Record<string, unknown>;
}

export interface CompiledGraphLike {
  invoke(input: unknown, config?: RunConfig): Promise<Values>;
  stream(
    input: unknown,
    config?: RunConfig,
  ): Promise<AsyncIterable<unknown>> | AsyncIterable<unknown>;
  getState(config: RunConfig): Promise<StateSnapshotLike>;
  getStateHistory(config: RunConfig, options?: HistoryOptions): AsyncIterable<StateSnapshotLike>;
  updateState(config: RunConfig, values: Values, asNode?: string): Promise<RunConfig>;
}

export interface AddNodeOptions {
  ends?: string[];
  retryPolicy?: {
    maxAttempts?: number;
    initialInterval?: number;
    backoffFactor?: number;
    jitter?: boolean;
  };
}

export interface CompileOptions {
  checkpointer?: unknown;
  interruptBefore?: string[];
  interruptAfter?: string[];
}

export interface StateGraphLike {
  addNode(
    name: string,
    action: NodeFn | CompiledGraphLike,
    options?: AddNodeOptions,
  ): StateGraphLike;
  addEdge(from: string | string[], to: string): StateGraphLike;
  addConditionalEdges(
    source: string,
    path: (state: Values) => unknown,
    pathMap?: string[] | Record<string, string>,
  ): StateGraphLike;
  addSequence(nodes: Record<string, NodeFn>): StateGraphLike;
  compile(options?: CompileOptions): CompiledGraphLike;
}

export interface ReducerSpec {
  reducer: (current: never, update: never) => unknown;
  default?: () => unknown;
}

export interface AnnotationLike {
  (spec?: ReducerSpec): unknown;
  Root(fields: Record<string, unknown>): unknown;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The injected API: LangGraph.js's public names, as both libraries export them. */
export interface GraphApi {
  /** "keel" or "langgraph", for failure messages only; programs must not branch on it. */
  label: string;
  Annotation: AnnotationLike;
  StateGraph: new (schema: unknown) => StateGraphLike;
  START: string;
  END: string;
  INTERRUPT: string;
  Send: new (node: string, args: unknown) => unknown;
  Command: new (params: { update?: Values; goto?: unknown; resume?: unknown }) => unknown;
  interrupt: (value: unknown) => unknown;
  isInterrupted: (value: unknown) => boolean;
  MemorySaver: new () => unknown;
  GraphRecursionError: ErrorClass;
  InvalidUpdateError: ErrorClass;
}

const requiredNames = [
  "Annotation",
  "StateGraph",
  "START",
  "END",
  "INTERRUPT",
  "Send",
  "Command",
  "interrupt",
  "isInterrupted",
  "MemorySaver",
  "GraphRecursionError",
  "InvalidUpdateError",
] as const;

/** Checks that a module exports every name the programs use, then views it as a `GraphApi`. */
export function toGraphApi(label: string, module: object): GraphApi {
  const exported = module as Record<string, unknown>;
  const missing = requiredNames.filter((name) => exported[name] === undefined);
  if (missing.length > 0) {
    throw new Error(`${label} does not export ${missing.join(", ")} from its package root`);
  }
  return { label, ...exported } as unknown as GraphApi;
}

// LangGraph.js exports its channel classes and `Pregel` from subpaths and its cache from its checkpoint
// package; Keel exports them from its root.
export const langgraph: GraphApi = toGraphApi("langgraph", {
  ...langgraphCheckpoint,
  ...langgraphChannels,
  ...langgraphPregel,
  ...langgraphZod,
  ...langgraphZodSchema,
  ...langgraphModule,
});

/** Keel's package root, loaded lazily so that one missing export fails tests, not the import. */
export async function loadKeel(): Promise<GraphApi> {
  const keelModule: object = await import("../../../src/index.js");
  const keelZod: object = await import("../../../src/graph/zod/index.js");
  return toGraphApi("keel", { ...keelZod, ...keelModule });
}
