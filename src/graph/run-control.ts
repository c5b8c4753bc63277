/**
 * Asks a running graph to stop at the next step boundary (LangGraph.js's `RunControl`): the
 * tasks running now finish and are saved, no new step starts, and the run rejects with
 * `GraphDrained`. Nodes see the run's control as `config.control` (a fresh one when the caller
 * gave none), so a node can ask too.
 *
 * @example
 * const control = new RunControl();
 * process.once("SIGTERM", () => control.requestDrain("sigterm"));
 * await graph.invoke(input, { configurable: { thread_id: "t1" }, control });
 */
export class RunControl {
  private reason: string | undefined;

  /** True once `requestDrain` was called. */
  get drainRequested(): boolean {
    return this.reason !== undefined;
  }

  /** Why the drain was asked for (undefined before). */
  get drainReason(): string | undefined {
    return this.reason;
  }

  /** Stops the run before its next step; `reason` ends up in `GraphDrained`'s message. */
  requestDrain(reason = "shutdown"): void {
    this.reason ??= reason;
  }
}
