export type { SqliteDatabase } from "./sqlite-runner.js";
export { SqliteSaver, type SqliteSaverOptions, type SqliteStoreLike } from "./sqlite-saver.js";
