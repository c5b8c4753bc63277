/** LangGraph.js's functional API: `entrypoint`, `task`, `getPreviousState`. */
export {
  type EntrypointFinal,
  EntrypointGraph,
  type EntrypointOptions,
  entrypoint,
  PREVIOUS,
} from "./entrypoint.js";
export { getPreviousState, type TaskOptions, task } from "./task.js";
