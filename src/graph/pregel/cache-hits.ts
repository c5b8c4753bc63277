import type { RunConfig } from "../types.js";

/**
 * The node configs whose call a node cache answered (`compile({ cache })`): the `updates` stream
 * marks such a task's chunk `__metadata__: { cached: true }`, as LangGraph.js does. Keyed by the
 * per-task config object, so nothing is kept after the task.
 */
export const cacheHits = new WeakSet<RunConfig>();
