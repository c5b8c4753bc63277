/** The virtual entry node: `addEdge(START, "first")`. Same value as LangGraph.js. */
export const START = "__start__";
/** The virtual exit node: `addEdge("last", END)`. Same value as LangGraph.js. */
export const END = "__end__";
/** The key under which `invoke` and `stream` report pending interrupts. */
export const INTERRUPT = "__interrupt__";

/** Names a node may not take (they are channels or virtual nodes of the engine). */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  START,
  END,
  INTERRUPT,
  "__error__",
  "__resume__",
  "__pregel_tasks",
]);

/** Internal channel prefixes. A node `x` is triggered through `branch:to:x` and joins through `join:…:x`. */
export const BRANCH_PREFIX = "branch:to:";
export const JOIN_PREFIX = "join:";
/** The channel that carries `Send`s to the next step. */
export const TASKS_CHANNEL = "__pregel_tasks";
/** {@link TASKS_CHANNEL} under the name LangGraph.js's checkpoint package exports it by. */
export const TASKS = TASKS_CHANNEL;
/** Pending-write channels with a fixed meaning (see the checkpointer port). */
export const ERROR_WRITE = "__error__";
export const INTERRUPT_WRITE = "__interrupt__";
export const RESUME_WRITE = "__resume__";
/** Marks a task that finished after an interrupt (its `__interrupt__` write stays, for history). */
export const DONE_WRITE = "__done__";
/** Results of functional-API tasks a paused entrypoint already ran (reused when it resumes). */
export const MEMO_WRITE = "__memo__";
/** Marks a task that finished without writing anything, so a resumed run does not run it again. */
export const NO_WRITES = "__no_writes__";
