import type { StateChannel } from "../annotation.js";
import type { NodeError } from "../errors.js";
import type { NodeTimeout } from "../pregel/timeout.js";
import type { CachePolicy, RetryPolicy, RunConfig } from "../types.js";

/** A node function: reads the state (or a `Send`'s args), returns an update, a `Command`, or nothing. */
export type NodeAction<State = never> = (state: State, config: RunConfig) => unknown;

/** A compiled graph used as a node (see `addNode`). */
export interface SubgraphLike {
  /** Runs the subgraph as a node of a parent run. */
  runAsSubgraph(input: unknown, config: RunConfig): Promise<Record<string, unknown>>;
  readonly stateKeys: readonly string[];
}

/**
 * Runs when a node failed after its retries, in the next step, with the node's input; what it
 * returns (an update, a `Command` with `goto`) is that step's result. If it throws, the run fails.
 */
export type ErrorHandler = (state: never, error: NodeError, config: RunConfig) => unknown;

/** Options of `addNode`. */
export interface AddNodeOptions {
  retryPolicy?: RetryPolicy;
  /** How long one attempt may take: ms, or `{ runTimeout, idleTimeout, refreshOn }`. */
  timeout?: NodeTimeout;
  /** Reuse the node's result for the same input (`true`: default policy; `false`: never). */
  cachePolicy?: CachePolicy | boolean;
  /** Turns the node's failure into a recovery step instead of failing the run. */
  errorHandler?: ErrorHandler;
  /** The nodes this node may `goto` with a `Command` (checked by `compile`). */
  ends?: string[];
  /**
   * Run the node only once nothing else is left to run (LangGraph.js's `defer`): triggered
   * while other tasks are still due, it waits for them, e.g. to gather a fan-out's results.
   */
  defer?: boolean;
  /**
   * The node's own input schema (an Annotation root, a zod object or a `StateSchema`): the node
   * gets only its keys, and keys the state lacks become internal channels of the graph.
   */
  input?: unknown;
  /**
   * The compiled graphs a function node invokes itself (LangGraph.js's option): their state under
   * this node's namespace is read with their schema (`getState`, `getStateHistory`).
   */
  subgraphs?: SubgraphLike[];
}

/** A routing function: returns node names, `END`, `Send`s, or a mix (possibly as a promise). */
export type PathFunction<State = never> = (state: State, config: RunConfig) => unknown;

/** Maps a path function's results to node names, or lists the names it may return. */
export type PathMap = Record<string, string> | string[];

export interface NodeDeclaration {
  name: string;
  action: NodeAction<never> | undefined;
  subgraph: SubgraphLike | undefined;
  retryPolicy: RetryPolicy | undefined;
  cachePolicy: CachePolicy | boolean | undefined;
  timeout?: NodeTimeout | undefined;
  errorHandler?: ErrorHandler | undefined;
  /** The node its failures are sent to (set by `compile`). */
  errorHandlerNode?: string | undefined;
  ends: string[] | undefined;
  defer?: boolean | undefined;
  /** `addNode(…, { subgraphs })`: the graph a function node invokes (the first one given). */
  invokes?: SubgraphLike | undefined;
  /** `addNode(…, { input })`: the keys of the node's input schema (its handler gets only these). */
  inputKeys?: string[] | undefined;
}

/** `setNodeDefaults`: what a node without its own gets. */
export interface NodeDefaults {
  retryPolicy?: RetryPolicy;
  timeout?: NodeTimeout;
  cachePolicy?: CachePolicy | boolean;
  /** The handler of every node without its own (one shared `__default_error_handler__` node). */
  errorHandler?: ErrorHandler;
}

export interface BranchDeclaration {
  source: string;
  path: PathFunction<never>;
  pathMap: Record<string, string> | undefined;
}

/** Everything the builder collected, handed to `compile`. */
export interface GraphDeclaration {
  schema: Record<string, StateChannel>;
  nodes: Map<string, NodeDeclaration>;
  edges: Array<[string, string]>;
  joins: Array<{ sources: string[]; target: string }>;
  branches: BranchDeclaration[];
  /** Keys `invoke` returns (an `output` schema); undefined: all. */
  outputKeys?: string[] | undefined;
  /** Channel keys a graph input may write (an `input` schema narrower than the channels); undefined: all. */
  inputKeys?: string[] | undefined;
  /** Checks a graph input against a `StateSchema`. */
  validateInput?: ((input: unknown) => Promise<unknown>) | undefined;
  /** Checks a call's `configurable` against the context schema (`new StateGraph(state, context)`). */
  validateContext?: ((configurable: Record<string, unknown>) => Promise<void>) | undefined;
}
