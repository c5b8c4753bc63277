import { KeelError } from "../../core/index.js";
import type { Channel, JoinBarrier } from "../channels/index.js";
import type { MessagesStream } from "../messages/messages-stream.js";
import { abortError } from "./execute.js";
import { stateWrites } from "./resume.js";
import { ChannelKind, type GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/**
 * The `debug` stream event announcing a task. A node with several triggers lists those that fired
 * (as LangGraph.js does): its trigger channel if set, a join if complete.
 */
export function debugTask(
  spec: GraphSpec,
  channels: readonly Channel[],
  step: number,
  task: Task,
): Record<string, unknown> {
  const own = task.node.triggers;
  const fired =
    own.length > 1
      ? own.filter((c) =>
          spec.channelKinds[c] === ChannelKind.Join
            ? (channels[c] as JoinBarrier).isComplete()
            : channels[c]!.has(),
        )
      : own;
  const triggers =
    task.kind === "push" ? ["__pregel_push"] : fired.map((c) => spec.channelNames[c]!);
  return {
    step,
    type: "task",
    timestamp: new Date().toISOString(),
    payload: { id: task.taskId, name: task.node.name, input: task.input, triggers, interrupts: [] },
  };
}

/** The `debug` stream event reporting a task's result. */
export function debugResult(spec: GraphSpec, step: number, task: Task): Record<string, unknown> {
  return {
    step,
    type: "task_result",
    timestamp: new Date().toISOString(),
    payload: {
      id: task.taskId,
      name: task.node.name,
      // A task that wrote a key more than once reports `{ key: { $writes } }`, as LangGraph.js.
      result: Array.isArray(task.update) ? stateWrites(spec, task) : (task.update ?? null),
      interrupts: [],
      error: null,
    },
  };
}

/** `streamMode: "messages"`: the messages a step's nodes returned, in the order they finished. */
export function streamNodeMessages(
  spec: GraphSpec,
  stream: MessagesStream,
  step: number,
  tasks: Task[],
  ns: string,
): void {
  const inOrder = tasks.length > 1 ? [...tasks].sort((a, b) => a.doneSeq - b.doneSeq) : tasks;
  for (const task of inOrder) {
    const triggers =
      task.kind === "push"
        ? ["__pregel_push"]
        : task.node.triggers.map((c) => spec.channelNames[c]!);
    stream.nodeEnd(
      { node: task.node.name, step, taskId: task.taskId, triggers, path: task.path, ns },
      task.update,
    );
  }
}

/** `metadata.writes` of a step: node → its update (an array when a node ran several times). */
export function writesOf(tasks: Task[]): Record<string, unknown> {
  const writes: Record<string, unknown> = {};
  // One task (every step of a chain): no look for a second task of the same node.
  const only = tasks.length === 1 ? tasks[0]! : undefined;
  if (only) {
    writes[only.node.name] = only.update ?? null;
    return writes;
  }
  for (const task of tasks) {
    const name = task.node.name;
    if (!Object.hasOwn(writes, name)) writes[name] = task.update ?? null;
    else writes[name] = ([] as unknown[]).concat(writes[name], [task.update ?? null]);
  }
  return writes;
}

/**
 * The error a failed task ends the run with. A node's own error is rethrown as it was thrown
 * (callers catch their own error classes, as with LangGraph.js); a non-Error throw is wrapped.
 */
export function nodeError(task: Task): unknown {
  const error = task.error;
  if (error instanceof Error) return error;
  return new KeelError(
    "NODE_FAILED",
    `Node "${task.node.name}" threw a non-Error value: ${String(error)}`,
    {
      cause: error,
      details: { node: task.node.name },
    },
  );
}

/** Settles with `promise`, or rejects as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
