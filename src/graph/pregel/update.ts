import type {
  BaseCheckpointSaver,
  CheckpointConfig,
  CheckpointTuple,
} from "../../checkpoint/base/index.js";
import { isCommand } from "../command.js";
import { END, START } from "../constants.js";
import { InvalidUpdateError } from "../errors.js";
import { groupPendingWrites } from "./checkpointing.js";
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
/** `asNode` LangGraph.js reserves for copying a checkpoint; Keel does not copy checkpoints. */
const COPY_NODE = "__copy__";

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
    tasks.push(await updateTask(loop, tuple, name, update.values));
  }
  return loop.applyUpdate(tasks, writesOf(tasks));
}

/** A task of node `name` that wrote `values` (an update or a Command) and its static edges. */
async function updateTask(
  loop: GraphLoop,
  tuple: CheckpointTuple | undefined,
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
  const task = new Task(node, "pull", 0, loop.stateView(), {
    checkpointId: tuple?.checkpoint.id ?? "",
    ns: "",
    step: (tuple?.metadata.step ?? -1) + 1,
  });
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
