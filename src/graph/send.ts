import type { NodeTimeout } from "./pregel/timeout.js";

/**
 * Runs `node` in the next step with `args` as its input instead of the graph state: the map half
 * of map-reduce. Return Sends from a conditional edge (or a `Command`'s `goto`); each becomes its
 * own task, and all of them run in the same step.
 *
 * @example
 * graph.addConditionalEdges("plan", (s) => s.items.map((item) => new Send("work", { item })));
 */
export class Send<Args = unknown> {
  readonly lg_name = "Send";

  /** The task's own `timeout` (overrides the target node's), as LangGraph.js's third argument. */
  readonly timeout?: NodeTimeout;

  constructor(
    readonly node: string,
    readonly args: Args,
    options?: { timeout?: NodeTimeout },
  ) {
    if (options?.timeout !== undefined) this.timeout = options.timeout;
  }

  /** LangGraph.js's JSON form: `{ lg_name: "Send", node, args }` (and `timeout` when set). */
  toJSON(): { lg_name: "Send"; node: string; args: Args; timeout?: NodeTimeout } {
    return { lg_name: this.lg_name, node: this.node, args: this.args, timeout: this.timeout };
  }
}

/** True for a `Send` (also one made by another copy of this module). */
export function isSend(value: unknown): value is Send {
  return (
    value instanceof Send ||
    (typeof value === "object" &&
      value !== null &&
      (value as { lg_name?: unknown }).lg_name === "Send")
  );
}
