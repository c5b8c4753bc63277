import type { CheckpointTuple } from "../../checkpoint/base/index.js";
import { START } from "../constants.js";
import type { StateSnapshot, StateTask } from "../types.js";
import { applyTasks } from "./apply.js";
import { dueInput, groupPendingWrites, startTaskId } from "./checkpointing.js";
import type { GraphLoop } from "./loop.js";
import { loadSavedWrites } from "./resume.js";
import { byNodeOrder, type Task } from "./task.js";

/**
 * The `StateSnapshot` of a checkpoint: its values, the tasks it leaves pending and their saved
 * outcomes. With `applyPending` (a thread's latest state), the writes of tasks that finished in
 * its pending step are shown in `values` (as `getState` does in LangGraph.js); a checkpoint read
 * by id, and history, show the checkpoint as saved.
 */
export function snapshotOf(
  loop: GraphLoop,
  tuple: CheckpointTuple,
  applyPending: boolean,
): StateSnapshot {
  loop.restore(tuple);
  const outcomes = groupPendingWrites(tuple.pendingWrites);
  const tasks = byNodeOrder(loop.nextTasks());
  const stateTasks: StateTask[] = [];
  const finished: Task[] = [];
  for (const task of tasks) {
    const outcome = outcomes.get(task.taskId);
    const entry: StateTask = {
      id: task.taskId,
      name: task.node.name,
      path: task.path,
      interrupts: outcome?.interrupts ?? [],
    };
    if (outcome?.error !== undefined) entry.error = outcome.error;
    if (outcome?.succeeded) {
      entry.result = loadSavedWrites(loop.spec, task, outcome);
      finished.push(task);
    }
    stateTasks.push(entry);
  }
  const due = dueInput(tuple.metadata);
  const inputPending = due !== undefined;
  if (due) {
    const start: StateTask = {
      id: startTaskId(tuple.checkpoint.id),
      name: START,
      path: ["__pregel_pull", START],
      interrupts: [],
    };
    // An input checkpoint saves its input with it (its metadata), so START's task has finished:
    // its result is the input's state keys, as LangGraph.js shows it. A copy of one has the input
    // due, finished only by an update given as START with the copy (saved as the task's writes).
    const written = outcomes.get(start.id);
    const input =
      tuple.metadata.source === "input"
        ? due.value
        : written?.succeeded
          ? Object.fromEntries(written.writes)
          : undefined;
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      const result: Record<string, unknown> = {};
      for (const key of loop.spec.stateKeys) {
        const value = (input as Record<string, unknown>)[key];
        if (value !== undefined) result[key] = value;
      }
      start.result = result;
    }
    stateTasks.push(start);
  }
  // A step that stopped midway (interrupted, failed or cancelled) is pending: its finished
  // tasks' writes show in getState, and only the others are next, as in LangGraph.js.
  const apply = applyPending && finished.length > 0;
  if (apply) applyTasks(loop, finished);
  const waiting = apply ? tasks.filter((t) => !finished.includes(t)) : tasks;
  return {
    values: loop.stateView(),
    next: inputPending ? [START] : waiting.map((t) => t.node.name),
    tasks: stateTasks,
    metadata: tuple.metadata,
    config: withCheckpointMap(tuple),
    createdAt: tuple.checkpoint.ts,
    parentConfig: tuple.parentConfig,
  };
}

/**
 * A subgraph checkpoint's config names where every enclosing graph was (`checkpoint_map`:
 * namespace → checkpoint id, its own included), as LangGraph.js's snapshots do; a root
 * checkpoint's config is as saved.
 */
function withCheckpointMap(tuple: CheckpointTuple): CheckpointTuple["config"] {
  const parents = tuple.metadata.parents;
  if (!parents || Object.keys(parents).length === 0) return tuple.config;
  const configurable = tuple.config.configurable ?? {};
  return {
    ...tuple.config,
    configurable: {
      ...configurable,
      checkpoint_map: {
        ...parents,
        [configurable.checkpoint_ns ?? ""]: configurable.checkpoint_id as string,
      },
    },
  };
}
