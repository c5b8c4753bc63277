import { AsyncLocalStorage } from "node:async_hooks";
import { KeelError, sha256Hex } from "../core/index.js";
import { GraphInterrupt } from "./errors.js";

/** What `interrupt()` needs to know about the task it is called in. */
export interface InterruptScope {
  /** The id of the `index`-th interrupt of this task (stable across resumes). */
  interruptIdFor(index: number): string;
  /** Values already given to this task's interrupts, in call order (from earlier resumes). */
  readonly resumes: unknown[];
  /** A resume value not yet used by any interrupt of this task. */
  fresh: { value: unknown } | undefined;
  /** How many times this attempt has called `interrupt()`. */
  calls: number;
  /**
   * Results of functional-API `task()` calls made by this task, by call path: saved with its
   * interrupt so that a resumed entrypoint does not run finished tasks again. Unused otherwise.
   */
  memo?: Record<string, unknown> | undefined;
  /**
   * What `getCurrentTaskInput()` returns when it is not the node's input: an entrypoint's own
   * input, or a functional-API task's arguments.
   */
  taskInput?: { value: unknown } | undefined;
  /**
   * In a traced run, runs `fn` as a chain run beside this task's (under the graph's run): how a
   * functional-API `task()` call is traced, as LangGraph.js traces it as a task of the graph.
   */
  traceSibling?: TraceSibling | undefined;
}

/** See `InterruptScope.traceSibling`. */
export type TraceSibling = <T>(name: string, input: unknown, fn: () => Promise<T>) => Promise<T>;

/**
 * A node that may await (an `async function`, or any node of a run with a checkpointer, where a
 * plain function may return a promise) carries its scope through awaits with AsyncLocalStorage;
 * the others use a plain slot set around the call, which costs nothing (see pregel/execute.ts).
 */
const asyncScope = new AsyncLocalStorage<InterruptScope>();
let syncScope: InterruptScope | undefined;

/** Runs `fn` with `scope` visible to `interrupt()` during its synchronous part. */
export function withSyncScope<T>(scope: InterruptScope, fn: () => T): T {
  const previous = syncScope;
  syncScope = scope;
  try {
    return fn();
  } finally {
    syncScope = previous;
  }
}

/** Runs `fn` with `scope` visible to `interrupt()` across its awaits. */
export function withAsyncScope<T>(scope: InterruptScope, fn: () => T): T {
  return asyncScope.run(scope, fn);
}

/** The scope of the node running now (the task), if any: a graph invoked inside it links to it. */
export function currentScope(): InterruptScope | undefined {
  return syncScope ?? asyncScope.getStore();
}

/** The stable id of the `index`-th interrupt of a task. */
export function interruptId(taskId: string, index: number): string {
  return sha256Hex(`${taskId}:${index}`).slice(0, 32);
}

/**
 * Pauses the node and hands `value` to the caller (as `__interrupt__` in the result of `invoke`).
 * When the run is resumed with `new Command({ resume })`, the node runs again from its start and
 * this call returns the resume value instead of pausing. Requires a checkpointer.
 *
 * @example
 * const review = (state) => {
 *   const answer = interrupt({ question: "Approve?", draft: state.draft });
 *   return { approved: answer === "yes" };
 * };
 */
export function interrupt<Value = unknown, Resume = unknown>(value: Value): Resume {
  const scope = syncScope ?? asyncScope.getStore();
  if (!scope) {
    throw new KeelError(
      "INTERRUPT_OUTSIDE_NODE",
      "interrupt() was called outside a running graph node, so there is no run to pause.",
      {
        hint: "Call it inside a node function, or in code the node awaits. A run can only pause with a checkpointer: without one, a node that is not an `async function` is not followed across its awaits.",
      },
    );
  }
  const index = scope.calls;
  scope.calls += 1;
  if (index < scope.resumes.length) return scope.resumes[index] as Resume;
  if (scope.fresh) {
    const resume = scope.fresh.value;
    scope.fresh = undefined;
    scope.resumes.push(resume);
    return resume as Resume;
  }
  throw new GraphInterrupt([{ id: scope.interruptIdFor(index), value }]);
}
