export { DURABILITY_MODES, type Durability } from "../base/index.js";
export { DurableSaver, type DurableSaverOptions, threadNotFound } from "./durable-saver.js";
export type { PruneOptions, PruneResult } from "./prune.js";
export type { ThreadSummary } from "./rows.js";
export type { SqlRunner } from "./sql-runner.js";
export { type UnreadableThread, unreadableThreads } from "./unreadable-threads.js";
