import type { StreamMode } from "../types.js";
import type { LoopHooks } from "./loop.js";

/** Where a run's stream chunks go: `mode` says which stream asked for `chunk`. */
export type StreamEmit = (mode: StreamMode, chunk: unknown) => void;

export type { SubgraphSink } from "./subgraph-sink.js";

/**
 * The loop hooks for the requested modes (`messages` is wired by its caller). `tasks` and
 * `checkpoints` are the task and checkpoint events of the `debug` stream, without the envelope,
 * as in LangGraph.js; a mode nobody asked for installs no hook, so it costs the run nothing.
 */
export function streamHooks(modes: readonly StreamMode[], emit: StreamEmit): LoopHooks {
  const hooks: LoopHooks = {};
  let debug = false;
  let tasks = false;
  let checkpoints = false;
  for (const mode of modes) {
    if (mode === "values") hooks.values = (chunk) => emit("values", chunk);
    else if (mode === "updates") hooks.updates = (chunk) => emit("updates", chunk);
    else if (mode === "custom") hooks.custom = (chunk) => emit("custom", chunk);
    else if (mode === "debug") debug = true;
    else if (mode === "tasks") tasks = true;
    else if (mode === "checkpoints") checkpoints = true;
  }
  if (debug || tasks || checkpoints) {
    hooks.debug = (chunk) => {
      if (debug) emit("debug", chunk);
      const type = chunk.type;
      if (tasks && (type === "task" || type === "task_result")) emit("tasks", chunk.payload);
      else if (checkpoints && type === "checkpoint") emit("checkpoints", chunk.payload);
    };
  }
  return hooks;
}

/** A run's namespace as LangGraph.js streams it: `checkpoint_ns` split at `|`. */
export function namespaceOf(checkpointNs: string | undefined): string[] {
  return checkpointNs ? checkpointNs.split("|") : [];
}
