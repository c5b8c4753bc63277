/**
 * `keel/checkpoint`: the checkpointer port and the savers. The SQLite and Postgres savers are
 * added here by their modules.
 */
export * from "./base/index.js";
export * from "./durable/index.js";
export * from "./postgres/index.js";
export * from "./runs/index.js";
export * from "./sqlite/index.js";
