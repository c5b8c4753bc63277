import { type ErrorCode, isKeelError, KeelError, type KeelErrorOptions } from "../core/index.js";

/**
 * Thrown in a node to pause it with `value`, as `interrupt(value)` would without its resume
 * value (LangGraph.js's older API, kept there for compatibility). Needs a checkpointer.
 *
 * @example
 * if (!state.approved) throw new NodeInterrupt("needs approval");
 */
export class NodeInterrupt extends KeelError {
  readonly interrupts: Interrupt[];

  constructor(value: unknown) {
    super("GRAPH_INTERRUPT", `The node interrupted: ${JSON.stringify(value) ?? "undefined"}`, {
      details: { value },
    });
    this.name = "NodeInterrupt";
    // The id is the task's (filled in when the engine catches it).
    this.interrupts = [{ id: "", value }];
  }
}

/**
 * A node or input wrote a value the state cannot take: two writes to a last-value key in one
 * step (`INVALID_CONCURRENT_GRAPH_UPDATE`), a key the state does not have, or an update that is
 * not an object (`INVALID_UPDATE`). Named as in LangGraph.js.
 */
export class InvalidUpdateError extends KeelError {
  constructor(message: string, options: KeelErrorOptions & { code?: ErrorCode } = {}) {
    super(options.code ?? "INVALID_UPDATE", message, options);
  }

  /** LangGraph.js's troubleshooting code for this error, as it sets it. */
  get lc_error_code(): string {
    return this.code === "INVALID_CONCURRENT_GRAPH_UPDATE"
      ? "INVALID_CONCURRENT_GRAPH_UPDATE"
      : "INVALID_GRAPH_NODE_RETURN_VALUE";
  }
}

/** The graph ran `recursionLimit` super-steps without finishing. Named as in LangGraph.js. */
export class GraphRecursionError extends KeelError {
  constructor(limit: number) {
    super(
      "GRAPH_RECURSION_LIMIT",
      `The graph ran ${limit} super-steps (the recursion limit) without reaching END.`,
      {
        details: { recursionLimit: limit },
        hint: "If the loop is intended, raise it: graph.invoke(input, { recursionLimit: 100 }); otherwise check the conditional edges for a cycle that never exits.",
      },
    );
  }

  /** LangGraph.js's troubleshooting code for this error. */
  get lc_error_code(): string {
    return "GRAPH_RECURSION_LIMIT";
  }
}

/**
 * What a node's `errorHandler` receives: which node failed (after its retries) and the error.
 * Named and shaped as in LangGraph.js.
 */
export class NodeError extends KeelError {
  readonly node: string;
  readonly error: Error;

  constructor(node: string, error: Error) {
    super("NODE_FAILED", `Node "${node}" failed: ${error.message}`, {
      details: { node },
      cause: error,
    });
    this.name = "NodeError";
    this.node = node;
    this.error = error;
  }
}

/**
 * The run stopped between steps because its `RunControl` asked it to drain (e.g. on SIGTERM).
 * With a checkpointer the last finished step is saved: `invoke(null, config)` continues it.
 */
export class GraphDrained extends KeelError {
  readonly reason: string;

  constructor(reason: string) {
    super("GRAPH_DRAINED", `Graph drained: ${reason}`, {
      details: { reason },
      hint: "The run can be continued from its last checkpoint: invoke(null, { configurable: { thread_id } }).",
    });
    this.name = "GraphDrained";
    this.reason = reason;
  }
}

/** The graph is malformed (found by `compile`) or was used in a way its shape does not allow. */
export class GraphValueError extends KeelError {
  constructor(message: string, options: KeelErrorOptions & { code?: ErrorCode } = {}) {
    super(options.code ?? "INVALID_GRAPH", message, options);
  }
}

/** One pending interrupt: the value passed to `interrupt()` and a stable id. */
export interface Interrupt<Value = unknown> {
  id: string;
  value: Value;
}

/**
 * Thrown by `interrupt()` to pause a node; the engine catches it, saves the step and returns the
 * interrupt to the caller. Only escapes to user code when a subgraph is run outside a graph.
 */
export class GraphInterrupt extends KeelError {
  readonly interrupts: Interrupt[];

  constructor(interrupts: Interrupt[]) {
    super(
      "GRAPH_INTERRUPT",
      `The graph was interrupted: ${interrupts.map((i) => JSON.stringify(i.value) ?? "undefined").join(", ")}`,
      {
        details: { interrupts },
      },
    );
    this.interrupts = interrupts;
  }
}

/**
 * True for the error `interrupt()` throws to pause a node (also across module copies): a
 * `GRAPH_INTERRUPT` KeelError that carries its interrupts. Any other error, even with that code,
 * is a failure, never a pause.
 */
export function isGraphInterrupt(error: unknown): error is GraphInterrupt {
  if (error instanceof GraphInterrupt) return true;
  return (
    isKeelError(error) &&
    error.code === "GRAPH_INTERRUPT" &&
    Array.isArray((error as { interrupts?: unknown }).interrupts)
  );
}

/**
 * True when a result of `invoke` (or a streamed chunk) reports pending interrupts.
 *
 * @example
 * const result = await graph.invoke(input, config);
 * if (isInterrupted(result)) console.log(result.__interrupt__[0].value);
 */
export function isInterrupted<Value = unknown>(
  values: unknown,
): values is { __interrupt__: Interrupt<Value>[] } {
  return (
    typeof values === "object" &&
    values !== null &&
    Array.isArray((values as { __interrupt__?: unknown }).__interrupt__)
  );
}

/**
 * Reading a channel that holds no value (LangGraph.js's `EmptyChannelError`), e.g. a
 * `LastValue` nothing has written and that has no default.
 *
 * @example
 * try { new LastValue<number>().get(); } catch (e) { e instanceof EmptyChannelError; } // true
 */
export class EmptyChannelError extends KeelError {
  constructor(message = "The channel holds no value yet.") {
    super("EMPTY_CHANNEL", message, {
      hint: "Check isAvailable() before get(), or give the channel a default.",
    });
    this.name = "EmptyChannelError";
  }
}
