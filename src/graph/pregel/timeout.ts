import { KeelError } from "../../core/index.js";

/**
 * How long one attempt of a node may take (LangGraph.js's `TimeoutPolicy`): `runTimeout` ms in
 * all, `idleTimeout` ms without progress. Progress is a `config.heartbeat()` call, or under
 * `refreshOn: "auto"` (the default) also a `config.writer(...)` chunk.
 */
export interface TimeoutPolicy {
  runTimeout?: number | undefined;
  idleTimeout?: number | undefined;
  refreshOn?: "auto" | "heartbeat";
}

/** A node's `timeout` option: milliseconds (a run timeout) or a policy. */
export type NodeTimeout = number | TimeoutPolicy;

/** What `NodeTimeoutError` is built from. */
export interface NodeTimeoutInit {
  node: string;
  elapsed: number;
  kind: "run" | "idle";
  runTimeout?: number | undefined;
  idleTimeout?: number | undefined;
}

/**
 * An attempt of a node ran past its `timeout` (LangGraph.js's name and fields). The node's
 * `config.signal` fired; its writes are dropped. It is retried under the node's `retryPolicy`.
 *
 * @example
 * builder.addNode("fetch", fetchNode, { timeout: 5_000 });
 * try { await graph.invoke(input); } catch (e) { if (isNodeTimeoutError(e)) console.log(e.node, e.kind); }
 */
export class NodeTimeoutError extends KeelError {
  readonly node: string;
  readonly kind: "run" | "idle";
  /** The limit that fired. */
  readonly timeout: number;
  readonly runTimeout: number | undefined;
  readonly idleTimeout: number | undefined;
  /** Milliseconds the attempt had run. */
  readonly elapsed: number;

  constructor(init: NodeTimeoutInit) {
    const timeout = init.kind === "run" ? init.runTimeout : init.idleTimeout;
    if (timeout === undefined)
      throw new KeelError(
        "INVALID_ARGUMENT",
        `${init.kind === "run" ? "runTimeout" : "idleTimeout"} is required for a ${init.kind} timeout.`,
        { hint: "Pass the limit that fired." },
      );
    super(
      "NODE_TIMEOUT",
      `Node "${init.node}" timed out: ${init.kind === "run" ? "ran" : "made no progress for"} more than ${timeout} ms.`,
      {
        details: { node: init.node, kind: init.kind, timeout, elapsed: init.elapsed },
        hint:
          init.kind === "idle"
            ? "Call config.heartbeat() while the node works, or raise idleTimeout."
            : "Raise the node's timeout, or make it stop early on config.signal.",
      },
    );
    this.name = "NodeTimeoutError";
    this.node = init.node;
    this.kind = init.kind;
    this.timeout = timeout;
    this.runTimeout = init.runTimeout;
    this.idleTimeout = init.idleTimeout;
    this.elapsed = init.elapsed;
  }
}

/** True for a {@link NodeTimeoutError} (also one from another copy of the module). */
export function isNodeTimeoutError(error: unknown): error is NodeTimeoutError {
  return (
    error instanceof NodeTimeoutError ||
    (error instanceof Error && error.name === "NodeTimeoutError" && "kind" in error)
  );
}

/** A `timeout` option as a policy; undefined for none. Refuses limits that are not positive. */
export function timeoutPolicyOf(timeout: NodeTimeout | undefined): TimeoutPolicy | undefined {
  if (timeout === undefined) return undefined;
  const policy: TimeoutPolicy =
    typeof timeout === "number"
      ? { runTimeout: timeout, idleTimeout: undefined, refreshOn: "auto" }
      : {
          runTimeout: timeout.runTimeout,
          idleTimeout: timeout.idleTimeout,
          refreshOn: timeout.refreshOn ?? "auto",
        };
  for (const limit of [policy.runTimeout, policy.idleTimeout])
    if (limit !== undefined && !(limit > 0))
      throw new KeelError(
        "INVALID_ARGUMENT",
        `A node timeout must be greater than 0, got ${limit}.`,
        {
          hint: "Pass milliseconds, e.g. { timeout: 5000 }.",
        },
      );
  if (policy.refreshOn !== "auto" && policy.refreshOn !== "heartbeat")
    throw new KeelError("INVALID_ARGUMENT", 'refreshOn must be "auto" or "heartbeat".', {});
  if (policy.runTimeout === undefined && policy.idleTimeout === undefined) return undefined;
  return policy;
}

/** Kept here rather than imported from node-output: this module sits below the engine's. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** What the node sees of an attempt with a timeout: its signal and its progress calls. */
export interface TimedAttempt {
  signal: AbortSignal;
  heartbeat: () => void;
  /** Progress under `refreshOn: "auto"` (a custom stream chunk). */
  progress: () => void;
}

/**
 * Runs one attempt of `node` under `policy`: `call` gets the attempt's signal and progress calls.
 * A synchronous result is checked against the run timeout after the fact (the event loop cannot
 * interrupt it); an asynchronous one is raced against the timers, and when one fires the signal
 * aborts and the attempt rejects with a `NodeTimeoutError` (the abandoned promise is observed, so
 * its late rejection is not unhandled).
 */
export function runWithTimeout(
  node: string,
  policy: TimeoutPolicy,
  call: (attempt: TimedAttempt) => unknown,
): unknown {
  const controller = new AbortController();
  const started = Date.now();
  const { runTimeout, idleTimeout } = policy;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let runTimer: ReturnType<typeof setTimeout> | undefined;
  let onFire: ((error: NodeTimeoutError) => void) | undefined;
  const fire = (kind: "run" | "idle") => {
    clearTimeout(idleTimer);
    clearTimeout(runTimer);
    const error = new NodeTimeoutError({
      node,
      kind,
      elapsed: Date.now() - started,
      runTimeout,
      idleTimeout,
    });
    controller.abort(error);
    onFire?.(error);
  };
  const armIdle = () => {
    if (idleTimeout === undefined || controller.signal.aborted) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => fire("idle"), idleTimeout);
  };
  const attempt: TimedAttempt = {
    signal: controller.signal,
    heartbeat: armIdle,
    progress: policy.refreshOn === "heartbeat" ? () => {} : armIdle,
  };
  const result = call(attempt);
  if (!isThenable(result)) {
    const elapsed = Date.now() - started;
    if (runTimeout !== undefined && elapsed > runTimeout)
      throw new NodeTimeoutError({ node, kind: "run", elapsed, runTimeout, idleTimeout });
    return result;
  }
  return new Promise((resolve, reject) => {
    onFire = reject;
    if (runTimeout !== undefined) runTimer = setTimeout(() => fire("run"), runTimeout);
    armIdle();
    Promise.resolve(result).then(
      (value) => {
        clearTimeout(idleTimer);
        clearTimeout(runTimer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(idleTimer);
        clearTimeout(runTimer);
        reject(error);
      },
    );
  });
}
