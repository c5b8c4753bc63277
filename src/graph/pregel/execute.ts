import { isKeelError, KeelError } from "../../core/index.js";
import { Command } from "../command.js";
import { isGraphInterrupt, NodeInterrupt } from "../errors.js";
import { withAsyncScope, withSyncScope } from "../interrupt.js";
import type { RunControl } from "../run-control.js";
import { type RunTrace, runInLangChainContext } from "../tracing/index.js";
import type { RetryPolicy, RunConfig, ServerInfo } from "../types.js";
import { isIdleSignal } from "./idle-signal.js";
import { isThenable, type OutputContext, ParentCommand, recordResult } from "./node-output.js";
import type { SubgraphSink } from "./subgraph-sink.js";
import type { Task } from "./task.js";
import { isNodeTimeoutError, runWithTimeout, type TimedAttempt } from "./timeout.js";

/** What running a task needs beyond turning its result into writes. */
export interface ExecuteContext extends OutputContext {
  /** True when the run has a checkpointer (and so can pause on `interrupt()`). */
  readonly checkpointing: boolean;
  /** The config a subgraph node runs with (its own namespace, the parent's checkpointer). */
  subgraphConfig(task: Task): RunConfig;
  /** The node's `config.writer`. */
  readonly writer: (chunk: unknown) => void;
  /** The run's drain switch, handed to nodes as `config.control`. */
  readonly control: RunControl;
  /** The signal of the running step when the graph has a `stepTimeout`. */
  readonly stepSignal: AbortSignal | undefined;
  /** The run's signal, or a never-firing one when it has none (nodes always get a signal). */
  readonly nodeSignal: AbortSignal;
  /** Where the run streams its subgraphs' chunks (`subgraphs: true`), for graphs nodes invoke. */
  readonly sink?: SubgraphSink | undefined;
  /** A task failed for good (no retry, no handler): the step's other tasks are cancelled. */
  taskFailed(task: Task): void;
  /**
   * True when the run's callbacks are only Keel's stream handlers (`messages`, `tools`, v3):
   * nodes run in LangChain's context, so models called without a config still report.
   */
  readonly streamHandlers: boolean;
  /** The run's checkpointer and namespace, for graphs the node invokes (nested invoke). */
  readonly persistence: {
    readonly saver: unknown;
    readonly ns: string;
    readonly checkpointId: string;
  };
}

/** Where a node's config carries the run's checkpointer, as LangGraph.js's does. */
export const CONFIG_KEY_CHECKPOINTER = "__pregel_checkpointer";

const NO_RETRY = new Set([
  "TypeError",
  "SyntaxError",
  "ReferenceError",
  "RangeError",
  "AbortError",
]);

/** The default `retryOn`: not programming errors, aborts or Keel's own graph errors. */
export function defaultRetryOn(error: unknown): boolean {
  // A timed-out attempt may well succeed next time (as LangGraph.js retries it).
  if (isNodeTimeoutError(error)) return true;
  if (isKeelError(error)) return false;
  if (error instanceof Error && NO_RETRY.has(error.name)) return false;
  const status =
    (error as { status?: unknown; response?: { status?: unknown } })?.status ??
    (error as { response?: { status?: unknown } })?.response?.status;
  if (
    typeof status === "number" &&
    status >= 400 &&
    status < 500 &&
    status !== 408 &&
    status !== 429
  )
    return false;
  return true;
}

/** The wait before retry `attempt + 1`, as LangGraph.js computes it. */
export function retryDelay(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(
    (policy.initialInterval ?? 500) * (policy.backoffFactor ?? 2) ** (attempt - 1),
    policy.maxInterval ?? 128_000,
  );
  return policy.jitter === false ? base : base * (0.75 + Math.random() * 0.5);
}

/** Waits `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The error a cancelled run rejects with. */
export function abortError(signal?: AbortSignal): unknown {
  // A reason the caller gave (abort(reason)) is thrown as is, as LangGraph.js does.
  const reason: unknown = signal?.reason;
  if (reason !== undefined && !(reason instanceof Error && reason.name === "AbortError"))
    return reason;
  const error = new KeelError("ABORTED", "The graph run was aborted.", {
    hint: "The AbortSignal passed in the config fired.",
  });
  // The name every AbortSignal user checks for (`error.name === "AbortError"`).
  error.name = "AbortError";
  return error;
}

function callNode(ctx: ExecuteContext, task: Task): unknown {
  const node = task.node;
  if (node.subgraph) {
    const subgraph = node.subgraph;
    const config = ctx.subgraphConfig(task);
    if (ctx.trace) {
      config.callbacks = task.callbacks;
      config.metadata = taskMetadata(ctx, task);
      task.config = config;
    }
    // A step timeout stops the child's steps too, not only the parent's wait for it.
    if (ctx.stepSignal) config.signal = ctx.stepSignal;
    return withAsyncScope(task, () =>
      subgraph.runAsSubgraph(task.input, config).then(
        (output) => {
          // A subgraph's output is its whole state; the parent takes the keys they share.
          const shared: Record<string, unknown> = {};
          for (const key of ctx.spec.stateKeys)
            if (Object.hasOwn(output, key)) shared[key] = output[key];
          return shared;
        },
        (error: unknown) => {
          // A child's Command.PARENT becomes this node's own result in the parent graph.
          if (error instanceof ParentCommand) {
            const { update, goto, resume } = error.command;
            return new Command({ update, goto, resume });
          }
          throw error;
        },
      ),
    );
  }
  const action = node.action as (state: unknown, config: RunConfig) => unknown;
  const receiver = node.receiver;
  const config = nodeConfig(ctx, task);
  // Any function may return a promise and call interrupt() after an await (e.g. a plain arrow
  // wrapping an async helper); it can tell only when it has a checkpointer. Without one, only
  // `async function`s pay for AsyncLocalStorage (interrupt() cannot pause such a run anyway).
  const trace = ctx.trace;
  if (trace)
    return withAsyncScope(task, () =>
      trace.scope(config, () => action.call(receiver, task.input, config)),
    );
  if (ctx.streamHandlers)
    return withAsyncScope(task, () =>
      runInLangChainContext(config, () => action.call(receiver, task.input, config)),
    );
  return node.isAsync || ctx.checkpointing
    ? withAsyncScope(task, () => action.call(receiver, task.input, config))
    : withSyncScope(task, () => action.call(receiver, task.input, config));
}

/** The metadata of a task's config: LangGraph.js's `langgraph_*` keys (all of them when traced). */
function taskMetadata(ctx: ExecuteContext, task: Task): Record<string, unknown> {
  const metadata: Record<string, unknown> = Object.assign({}, ctx.config.metadata);
  metadata.langgraph_node = task.node.name;
  metadata.langgraph_step = task.step;
  if (!ctx.trace) {
    metadata.langgraph_checkpoint_ns = `${task.node.name}:${task.taskId}`;
    return metadata;
  }
  const ns = ctx.persistence.ns;
  const taskNs = `${ns ? `${ns}|` : ""}${task.node.name}:${task.taskId}`;
  metadata.langgraph_triggers =
    task.kind === "push"
      ? ["__pregel_push"]
      : task.node.triggers.map((channel) => ctx.spec.channelNames[channel]!);
  metadata.langgraph_path = task.path;
  metadata.langgraph_checkpoint_ns = taskNs;
  metadata.checkpoint_ns = taskNs;
  return metadata;
}

/**
 * The config a node sees: the run's, with LangGraph.js's task metadata — which node runs and its
 * deterministic task id (`configurable.__pregel_task_id`, and `langgraph_checkpoint_ns` as
 * `<node>:<task id>`), the same when the task is re-run after an interrupt or a crash, so code
 * above the engine (and a node's own side effects) can key work on it.
 */
function nodeConfig(ctx: ExecuteContext, task: Task): RunConfig {
  const config = ctx.config;
  // Copies, then keys set one by one: V8 (Node 20) makes a spread literal that adds a key the
  // source lacks (`{ ...configurable, __pregel_task_id }`) through a slow path costing
  // microseconds, and this runs for every task.
  const configurable = Object.assign({}, config.configurable);
  configurable.__pregel_task_id = task.taskId;
  const metadata = taskMetadata(ctx, task);
  // A graph the node invokes with this config runs in the task's namespace (as LangGraph.js's
  // nested graphs), on the same saver when the run has one.
  const ns = ctx.persistence.ns;
  const taskNs = metadata.langgraph_checkpoint_ns as string;
  if (ns && !ctx.trace) {
    configurable.checkpoint_ns = `${ns}|${taskNs}`;
    // A subgraph's node: what its tools and models report says which graph it ran in.
    metadata.checkpoint_ns = configurable.checkpoint_ns;
  } else configurable.checkpoint_ns = taskNs;
  if (ctx.checkpointing) configurable[CONFIG_KEY_CHECKPOINTER] = ctx.persistence.saver;
  if (ctx.sink) task.sink = ctx.sink;
  const nodeConfig: RunConfig = Object.assign({}, config);
  nodeConfig.configurable = configurable;
  nodeConfig.metadata = metadata;
  if (ctx.trace) nodeConfig.callbacks = task.callbacks;
  nodeConfig.writer = ctx.writer;
  nodeConfig.control = ctx.control;
  nodeConfig.signal = ctx.stepSignal ?? ctx.nodeSignal;
  const timed = task.timed;
  if (timed) addTimeout(nodeConfig, timed);
  // A graph the node invokes without a config inherits this one (as LangGraph.js's do).
  task.config = nodeConfig;
  nodeConfig.executionInfo = {
    threadId: configurable.thread_id,
    taskId: task.taskId,
    checkpointId: ctx.persistence.checkpointId,
    checkpointNs: configurable.checkpoint_ns,
    nodeAttempt: task.attempt,
    nodeFirstAttemptTime: task.firstAttemptTime,
  };
  const server = serverInfoOf(configurable, config.metadata);
  if (server) nodeConfig.serverInfo = server;
  return nodeConfig;
}

/** A node with a timeout: its signal also fires on timeout; heartbeats and chunks are progress. */
function addTimeout(config: RunConfig, timed: TimedAttempt): void {
  const outer = config.signal;
  config.signal =
    outer && !isIdleSignal(outer) ? AbortSignal.any([outer, timed.signal]) : timed.signal;
  config.heartbeat = timed.heartbeat;
  const writer = config.writer;
  config.writer = (chunk) => {
    timed.progress();
    writer?.(chunk);
  };
}

/**
 * LangGraph Platform's ids as a node sees them (`config.serverInfo`): from `configurable`, else
 * `metadata`; undefined when the run was not started by a server.
 */
function serverInfoOf(
  configurable: Record<string, unknown>,
  metadata: Record<string, unknown> | undefined,
): ServerInfo | undefined {
  const assistantId = configurable.assistant_id ?? metadata?.assistant_id;
  const graphId = configurable.graph_id ?? metadata?.graph_id;
  const user = configurable.langgraph_auth_user;
  if (assistantId === undefined && graphId === undefined && user === undefined) return undefined;
  return {
    assistantId: assistantId as string | undefined,
    graphId: graphId as string | undefined,
    user: user as ServerInfo["user"],
  };
}

function fail(
  ctx: ExecuteContext,
  task: Task,
  error: unknown,
  attempt: number,
): void | Promise<void> {
  if (isGraphInterrupt(error)) {
    // A NodeInterrupt carries no id: it is the task's first interrupt.
    task.interrupts = error.interrupts.map((item, index) =>
      item.id === "" ? { id: task.interruptIdFor(index), value: item.value } : item,
    );
    task.nodeInterrupt = error instanceof NodeInterrupt;
    return;
  }
  const policy = task.node.retryPolicy;
  if (
    policy &&
    attempt < (policy.maxAttempts ?? 3) &&
    (policy.retryOn ?? defaultRetryOn)(error) &&
    !ctx.config.signal?.aborted
  ) {
    return sleep(retryDelay(policy, attempt), ctx.config.signal).then(
      () => {
        task.resetForRetry();
        return attempt_(ctx, task, attempt + 1);
      },
      (abort: unknown) => {
        task.failed = true;
        task.error = abort;
        ctx.taskFailed(task);
      },
    );
  }
  if (
    task.node.errorHandlerNode !== undefined &&
    !(error instanceof ParentCommand) &&
    !(isKeelError(error) && (error.code === "GRAPH_DRAINED" || error.code === "ABORTED"))
  ) {
    sendToErrorHandler(ctx, task, task.node.errorHandlerNode, error);
    return;
  }
  task.failed = true;
  task.error = error;
  ctx.taskFailed(task);
}

/**
 * A node with an error handler does not fail the run: its writes are dropped and its failure is
 * sent (as a `Send`) to the handler node, which runs in the next step with the node's input.
 */
function sendToErrorHandler(
  ctx: ExecuteContext,
  task: Task,
  handler: string,
  error: unknown,
): void {
  task.resetForRetry();
  const asError = error instanceof Error ? error : new Error(String(error));
  task.writeChannels.push(ctx.spec.sendsChannel);
  task.writeValues.push({
    node: handler,
    args: {
      node: task.node.name,
      input: task.input,
      error: asError,
      message: asError.message,
      errorName: asError.name,
    },
  });
}

function attempt_(ctx: ExecuteContext, task: Task, attempt: number): void | Promise<void> {
  task.attempt = attempt;
  if (attempt === 1) task.firstAttemptTime = Date.now();
  if (ctx.trace) return tracedAttempt(ctx, task, attempt, ctx.trace);
  let result: unknown;
  try {
    result = runNode(ctx, task);
  } catch (error) {
    return fail(ctx, task, error, attempt);
  }
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => finish(ctx, task, value, attempt),
      (error: unknown) => fail(ctx, task, error, attempt),
    );
  }
  return finish(ctx, task, result, attempt);
}

/** The node's result, or a promise of it (with its timeout, when it has one). */
function runNode(ctx: ExecuteContext, task: Task): unknown {
  const timeout = task.timeout ?? task.node.timeout;
  return timeout
    ? runWithTimeout(task.node.name, timeout, (timed) => {
        task.timed = timed;
        return callNode(ctx, task);
      })
    : callNode(ctx, task);
}

/**
 * One attempt of a task in a run given LangChain callbacks: a chain run named after the node,
 * under the graph's, spanning the node and its conditional edges (as LangGraph.js's task runs).
 */
async function tracedAttempt(
  ctx: ExecuteContext,
  task: Task,
  attempt: number,
  trace: RunTrace,
): Promise<void> {
  const run = await trace.startChain(
    { callbacks: trace.taskCallbacks(task.step), metadata: taskMetadata(ctx, task) },
    task.node.name,
    task.input,
  );
  task.callbacks = run.callbacks;
  task.traceSibling = (name, input, fn) =>
    trace.chain(
      { callbacks: trace.taskCallbacks(task.step), metadata: taskMetadata(ctx, task) },
      name,
      input,
      fn,
    );
  let result: unknown;
  try {
    result = await runNode(ctx, task);
    const pending = recordResult(ctx, task, result);
    if (pending) await pending;
  } catch (error) {
    await run.fail(error);
    return fail(ctx, task, error, attempt);
  }
  await run.end(result);
}

function finish(
  ctx: ExecuteContext,
  task: Task,
  result: unknown,
  attempt: number,
): void | Promise<void> {
  try {
    const pending = recordResult(ctx, task, result);
    if (pending) return pending.catch((error: unknown) => fail(ctx, task, error, attempt));
  } catch (error) {
    return fail(ctx, task, error, attempt);
  }
}

/**
 * Runs one task to completion: the node, its retries and its routing. Returns a promise only when
 * something was asynchronous, so a step of synchronous nodes never waits for the microtask queue.
 * Never throws: the outcome is on the task (`failed`/`error`, `interrupts`, or the writes).
 */
export function executeTask(ctx: ExecuteContext, task: Task): void | Promise<void> {
  return attempt_(ctx, task, 1);
}
