import { KeelError } from "../core/index.js";
import { currentScope } from "./interrupt.js";
import { Task } from "./pregel/task.js";

/**
 * The input of the node running now (the state it was given, or a `Send`'s args), for code the
 * node calls that was not handed it, as LangGraph.js's `getCurrentTaskInput`.
 *
 * @example
 * const tool = () => { const state = getCurrentTaskInput<{ user: string }>(); … };
 */
export function getCurrentTaskInput<Input = unknown>(): Input {
  const scope = currentScope();
  if (scope?.taskInput) return scope.taskInput.value as Input;
  if (!(scope instanceof Task)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      "getCurrentTaskInput() was called outside a running graph node.",
      {
        hint: "Call it inside a node, or in code the node calls (an async node, or any node of a run with a checkpointer, for code after an await).",
      },
    );
  }
  return scope.input as Input;
}
