import type {
  BaseCheckpointSaver,
  CheckpointConfig,
  CheckpointTuple,
} from "../../checkpoint/base/index.js";
import { isCommand } from "../command.js";
import { END, START } from "../constants.js";
import { InvalidUpdateError } from "../errors.js";
import { dueInput, groupPendingWrites, startTaskId } from "./checkpointing.js";
import { writesOf } from "./events.js";
import { type GraphLoop, startNode } from "./loop.js";
import { recordResult, writeUpdate } from "./node-output.js";
import { reuseSavedWrites } from "./resume.js";
import type { NodeSpec } from "./spec.js";
import { Task } from "./task.js";

/** One hand-made write: `values` as if node `asNode` had returned them (LangGraph.js's shape). */
export interface StateUpdate {
  values?: unknown;
  asNode?: string | undefined;
}

/** The updates applied together as one step, saved as one checkpoint (`bulkUpdateState`). */
export interface SuperStepUpdate {
  updates: StateUpdate[];
}

/** `asNode` for an update that is the thread's next input, saved but not applied yet. */
export const INPUT_NODE = "__input__";
/** `asNode` that copies the checkpoint as a fork beside it (values: null, or `[values, asNode]` pairs). */
export const COPY_NODE = "__copy__";

/** Refuses a `bulkUpdateState` call that has nothing to apply, before anything is saved. */
export function checkSuperSteps(supersteps: readonly SuperStepUpdate[]): void {
  if (supersteps.length === 0)
    throw new InvalidUpdateError("bulkUpdateState: No supersteps provided.", {
      hint: "Pass at least one { updates: [{ values, asNode }] }.",
    });
  if (supersteps.some((step) => step.updates.length === 0))
    throw new InvalidUpdateError("bulkUpdateState: No updates provided in a superstep.", {
      hint: "Give every superstep at least one { values, asNode }, or leave the superstep out.",
    });
}

/**
 * Applies one superstep of hand-made updates to the checkpoint `tuple` (undefined: a new thread)
 * and saves it as one checkpoint. Special writers, as in LangGraph.js: `"__input__"` saves the
 * values as the next input (START applies them when the thread runs on), `"__end__"` with null
 * values ends the pending step (its finished tasks' writes kept, the rest dropped). Without
 * `asNode`, `defaultWriter` names the node. Several updates in one superstep each need `asNode`.
 */
export async function applySuperStep(
  loop: GraphLoop,
  tuple: CheckpointTuple | undefined,
  updates: readonly StateUpdate[],
  defaultWriter: () => Promise<string>,
): Promise<CheckpointConfig> {
  if (tuple) loop.restore(tuple);
  const [first] = updates;
  if (first?.asNode === COPY_NODE) return copyCheckpoint(loop, tuple, updates, defaultWriter);
  const at = { checkpointId: tuple?.checkpoint.id ?? "", step: (tuple?.metadata.step ?? -1) + 1 };
  if (updates.length === 1 && first) {
    if (first.asNode === INPUT_NODE) return loop.saveAsInput(first.values, tuple !== undefined);
    if (first.asNode === END && (first.values === null || first.values === undefined))
      return endPendingStep(loop, tuple);
  }
  const tasks: Task[] = [];
  for (const update of updates) {
    const name = update.asNode ?? (updates.length === 1 ? await defaultWriter() : undefined);
    if (name === undefined || name === INPUT_NODE || name === END || name === COPY_NODE) {
      throw new InvalidUpdateError(
        name === undefined
          ? '"asNode" is required when applying multiple updates in one superstep.'
          : `Cannot apply "${name}" together with other updates in one superstep.`,
        {
          details: { asNode: name ?? null },
          hint:
            name === undefined
              ? "Name the node each update comes from: { values, asNode }."
              : `Put the "${name}" update in a superstep of its own.`,
        },
      );
    }
    tasks.push(await updateTask(loop, at, name, update.values));
  }
  return loop.applyUpdate(tasks, writesOf(tasks));
}

/**
 * `updateState(config, values, "__copy__")`, as in LangGraph.js: the checkpoint saved again as a
 * fork beside it (its pending writes, e.g. an interrupt, left behind). `values` given as
 * `[values, asNode]` pairs are then applied to the copy as one superstep.
 */
async function copyCheckpoint(
  loop: GraphLoop,
  tuple: CheckpointTuple | undefined,
  updates: readonly StateUpdate[],
  defaultWriter: () => Promise<string>,
): Promise<CheckpointConfig> {
  if (updates.length > 1)
    throw new InvalidUpdateError("Cannot copy checkpoint with multiple updates.", {
      hint: 'Put the "__copy__" update in a superstep of its own.',
    });
  if (!tuple)
    throw new InvalidUpdateError("Cannot copy a non-existent checkpoint.", {
      code: "CHECKPOINT_NOT_FOUND",
      hint: "Pass the config of a saved checkpoint (thread_id, optionally checkpoint_id).",
    });
  const pairs = copyUpdates(updates[0]?.values);
  // A copy of a checkpoint whose input is still due keeps it due (START's task), as LangGraph.js's
  // copy keeps its `__start__` channel.
  const input = dueInput(tuple.metadata);
  const config = await loop.saveCopy(tuple.parentConfig, input ? { [START]: input.value } : null);
  if (pairs.length === 0) return config;
  const at = { checkpointId: loop.persistence.checkpointId, step: loop.step + 1 };
  // As LangGraph.js: an update as a node the copy has due is that task's result (its writes
  // saved as the task's on the copy, so the copy's snapshot lists them), the n-th update as a
  // node taking the n-th task of that node.
  const due = new Map<string, string[]>();
  if (input) due.set(START, [startTaskId(at.checkpointId)]);
  for (const task of loop.nextTasks()) {
    const same = due.get(task.node.name);
    if (same) same.push(task.taskId);
    else due.set(task.node.name, [task.taskId]);
  }
  const tasks: Task[] = [];
  for (const { values, asNode } of pairs) {
    const task = await updateTask(loop, at, asNode ?? (await defaultWriter()), values);
    const matched = due.get(task.node.name)?.shift();
    if (matched) {
      task.takeId(matched);
      await loop.persistence.putTaskWrites(loop, task);
    }
    tasks.push(task);
  }
  return loop.applyUpdate(tasks, writesOf(tasks));
}

/** A copy's updates: `[[values, asNode], …]` (LangGraph.js's form); anything else copies only. */
function copyUpdates(values: unknown): StateUpdate[] {
  if (!Array.isArray(values) || values.length === 0) return [];
  if (!values.every((pair) => Array.isArray(pair) && pair.length === 2)) return [];
  return values.map(([update, asNode]: [unknown, unknown]) => ({
    values: update,
    asNode: typeof asNode === "string" ? asNode : undefined,
  }));
}

/** A task of node `name` that wrote `values` (an update or a Command) and its static edges. */
async function updateTask(
  loop: GraphLoop,
  at: { checkpointId: string; step: number },
  name: string,
  values: unknown,
): Promise<Task> {
  const node: NodeSpec | undefined =
    name === START ? startNode(loop.spec) : loop.spec.nodes[loop.spec.nodeIndex.get(name) ?? -1];
  if (!node || name === END) {
    // An InvalidUpdateError, as LangGraph.js throws, with Keel's code for it.
    throw new InvalidUpdateError(`updateState: "${name}" is not a node of this graph.`, {
      code: "NODE_NOT_FOUND",
      details: { node: name },
      hint: `Nodes: ${[...loop.spec.nodeIndex.keys()].join(", ")}.`,
    });
  }
  const task = new Task(node, "pull", 0, loop.stateView(), { ...at, ns: "" });
  if (values === null || values === undefined) return task;
  if (isCommand(values)) {
    const pending = recordResult(loop, task, values);
    if (pending) await pending;
    return task;
  }
  writeUpdate(loop, task, name, values);
  task.update = values;
  for (const [channel, value] of node.edgeWrites) {
    task.writeChannels.push(channel);
    task.writeValues.push(value);
  }
  return task;
}

/**
 * `updateState(config, null, "__end__")`: the checkpoint's pending step is over without running
 * the tasks still due; those that finished (in an interrupted step) keep their saved writes.
 */
async function endPendingStep(
  loop: GraphLoop,
  tuple: CheckpointTuple | undefined,
): Promise<CheckpointConfig> {
  const tasks = loop.nextTasks();
  if (tuple && tuple.pendingWrites.length > 0)
    reuseSavedWrites(loop.spec, tasks, groupPendingWrites(tuple.pendingWrites), undefined, true);
  return loop.applyUpdate(tasks, null);
}

/**
 * The node `updateState` writes as when no `asNode` is given, as in LangGraph.js: START on a
 * thread with no checkpoint or at its input, otherwise the node that wrote the checkpoint's step.
 * When several nodes wrote it (a parallel step), which one is meant cannot be guessed.
 */
export async function defaultWriter(
  saver: BaseCheckpointSaver,
  tuple: CheckpointTuple | undefined,
): Promise<string> {
  if (!tuple) return START;
  // A fork is a copy of its parent, whose step decides.
  const decisive =
    tuple.metadata.source === "fork" && tuple.parentConfig
      ? ((await saver.getTuple(tuple.parentConfig)) ?? tuple)
      : tuple;
  // No writes: the checkpoint where the input was applied (START's step).
  const names = Object.keys(decisive.metadata.writes ?? {});
  if (names.length <= 1) return names[0] ?? START;
  throw new InvalidUpdateError(
    `Ambiguous update: several nodes (${names.join(", ")}) wrote the last step, so updateState cannot tell which node the update comes from.`,
    {
      details: { candidates: names },
      hint: `Specify asNode: graph.updateState(config, values, "${names[0]}").`,
    },
  );
}
