import type { Callbacks } from "@langchain/core/callbacks/manager";
import type {
  BaseStore,
  CheckpointConfig,
  CheckpointConfigurable,
  CheckpointMetadata,
  Durability,
} from "../checkpoint/base/index.js";
import type { Interrupt } from "./errors.js";
import type { RunControl } from "./run-control.js";

/** What a streamed run reports: see `docs/graph.md`, "Streaming". */
export type StreamMode =
  | "values"
  | "updates"
  | "debug"
  | "messages"
  | "custom"
  | "tasks"
  | "checkpoints"
  | "tools";

/** The stream modes Keel implements; `stream` refuses any other (LangGraph.js yields nothing). */
export const STREAM_MODES: ReadonlySet<string> = new Set<StreamMode>([
  "values",
  "updates",
  "debug",
  "messages",
  "custom",
  "tasks",
  "checkpoints",
  "tools",
]);

/**
 * Per-call options of `invoke`, `stream`, `getState` and `updateState`; shaped like LangGraph's
 * `RunnableConfig`, so the same object works with both.
 */
export interface RunConfig extends CheckpointConfig {
  configurable?: CheckpointConfigurable;
  /** Most super-steps a run may take before `GraphRecursionError` (default 25). */
  recursionLimit?: number;
  /**
   * Most tasks of one step running at once (LangGraph.js's `maxConcurrency`); the others start
   * as running ones finish. Unset: all of a step's tasks start together.
   */
  maxConcurrency?: number;
  /** Cancels the run: the current step is abandoned and the call rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Most milliseconds the whole run may take (it is then cancelled as by `signal`). */
  timeout?: number;
  /** What `stream` yields (default `"updates"`, as LangGraph.js's compiled state graphs). */
  streamMode?: StreamMode | StreamMode[];
  /**
   * `stream` only: subgraphs stream too, and every chunk is tagged with the namespace it came
   * from (`[namespace, chunk]`, or `[namespace, mode, chunk]` with several modes).
   */
  subgraphs?: boolean;
  /** Overrides the compiled `interruptBefore` / `interruptAfter` for this call. */
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  /**
   * When each step is saved, as in LangGraph.js (default: the checkpointer's own, `sync` for
   * Keel's savers): `sync` before the next step starts, `async` in the background (bounded),
   * `exit` only when the run ends, fails or pauses. See docs/durability.md.
   */
  durability?: Durability;
  /**
   * Set on the config a node receives: sends a chunk to the `"custom"` stream (does nothing when
   * the run is not streamed in that mode). A subgraph passes it on to its own nodes.
   */
  writer?: (chunk: unknown) => void;
  /** Set on the config of a node with an idle timeout: reports progress (restarts the clock). */
  heartbeat?: () => void;
  /**
   * Asks the run to stop at the next step boundary (`control.requestDrain()`); nodes get the
   * run's control here, a fresh one when the caller gave none.
   */
  control?: RunControl;
  /** Set on the config a node receives: which task and attempt this is (see `ExecutionInfo`). */
  executionInfo?: ExecutionInfo;
  /** Set on the config a node receives when the run came through LangGraph Platform ids. */
  serverInfo?: ServerInfo;
  /** Long-term memory for nodes (set by `compile({ store })` unless the call gives one). */
  store?: BaseStore;
  /** LangChain callbacks, passed to nodes and the Runnables they call (as LangGraph.js does). */
  callbacks?: Callbacks;
  /** The name of the graph's LangChain callback run (default: the graph's name). */
  runName?: string;
  /** The id of the graph's LangChain callback run (default: a new one). */
  runId?: string;
  /** Free-form tags and metadata, passed through to nodes. */
  tags?: string[];
  metadata?: Record<string, unknown>;
}

/** What a node is told about its own execution (`config.executionInfo`), as LangGraph.js. */
export interface ExecutionInfo {
  threadId: string | undefined;
  taskId: string;
  checkpointId: string;
  checkpointNs: string;
  /** 1 on the first attempt, 2 on the first retry, … */
  nodeAttempt: number;
  /** When the first attempt started (ms since the epoch); the same on every retry. */
  nodeFirstAttemptTime: number;
}

/** The LangGraph Platform ids of a run (`config.serverInfo`), as LangGraph.js. */
export interface ServerInfo {
  assistantId: string | undefined;
  graphId: string | undefined;
  user: { identity: string; [key: string]: unknown } | undefined;
}

/**
 * Reuse a node's (or task's) result for the same input, as LangGraph.js's `CachePolicy` (needs
 * `compile({ cache })` or `entrypoint({ cache })`).
 */
export interface CachePolicy {
  /** Seconds an entry lives (none: until `clearCache()`). */
  ttl?: number;
  /** The cache key of an input (default: the input as JSON). */
  keyFunc?: (input: unknown) => string;
}

/** When and how a node is retried after it throws. Same fields and defaults as LangGraph.js. */
export interface RetryPolicy {
  /** Milliseconds before the first retry (default 500). */
  initialInterval?: number;
  /** Multiplier per retry (default 2). */
  backoffFactor?: number;
  /** Longest wait between attempts in ms (default 128000). */
  maxInterval?: number;
  /** Attempts in total, the first included (default 3). */
  maxAttempts?: number;
  /** Randomise waits by up to ±25% (default true). */
  jitter?: boolean;
  /** Which errors to retry (default: all but programming errors such as TypeError). */
  retryOn?: (error: unknown) => boolean;
}

/** A task pending at a checkpoint, as `getState` reports it. */
export interface StateTask {
  id: string;
  name: string;
  path: [string, string | number];
  interrupts: Interrupt[];
  /** The node's update, when the task already finished in an interrupted step. */
  result?: unknown;
  /** The error, when the task failed. */
  error?: unknown;
  /**
   * A subgraph node's own state: the config to read it with (`getState(config)`), or with
   * `getState(config, { subgraphs: true })` its snapshot.
   */
  state?: StateSnapshot | RunConfig;
}

/** The state of a thread at one checkpoint. Same shape as LangGraph.js's `StateSnapshot`. */
export interface StateSnapshot<State = Record<string, unknown>> {
  values: State;
  /** Nodes that run next (empty when the run finished). */
  next: string[];
  tasks: StateTask[];
  metadata: CheckpointMetadata | undefined;
  config: RunConfig;
  createdAt: string | undefined;
  parentConfig: RunConfig | undefined;
}
