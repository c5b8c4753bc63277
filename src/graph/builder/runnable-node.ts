import type { RunConfig } from "../types.js";
import type { NodeAction } from "./declarations.js";

/**
 * A LangChain `Runnable` (a chat model, a `RunnableLambda`, LangGraph's `ToolNode`, a LangGraph
 * compiled graph, …), recognised by shape so that Keel never loads LangChain for it (at run time
 * by its `lc_runnable` flag, which LangChain declares protected, so the type leaves it out).
 */
export interface RunnableLike {
  invoke(input: never, options?: never): Promise<unknown>;
}

/** True for a LangChain `Runnable`. */
export function isRunnableLike(value: unknown): value is RunnableLike {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { lc_runnable?: unknown }).lc_runnable === true &&
    typeof (value as { invoke?: unknown }).invoke === "function"
  );
}

/**
 * The node action that runs a Runnable: `invoke(state, config)`, as LangGraph.js does. The config
 * is the run's (callbacks, signal, tags, metadata, configurable), so the Runnable's callbacks and
 * cancellation follow the run.
 */
export function runnableAction(runnable: RunnableLike): NodeAction<never> {
  const invoke = runnable.invoke.bind(runnable) as unknown as (
    input: unknown,
    config: RunConfig,
  ) => Promise<unknown>;
  // An async function, so the engine treats the node as asynchronous (interrupt scope etc.).
  return async (state: unknown, config: RunConfig) => invoke(state, config);
}
