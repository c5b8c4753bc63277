export type { PostgresPool } from "./postgres-runner.js";
export {
  PostgresSaver,
  type PostgresSaverOptions,
  type PostgresStoreLike,
} from "./postgres-saver.js";
