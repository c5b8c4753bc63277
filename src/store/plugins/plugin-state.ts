import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import type { PluginState } from "./load-problem.js";
import { readPluginStateOf } from "./plugin-state-of.js";

export { type PluginState, type PluginSwitchRow, pluginLoadProblem } from "./load-problem.js";
export { readPluginStateOf } from "./plugin-state-of.js";

/** Reads the plugins' durable state (each part empty when its table does not exist yet). */
export function readPluginState(store: Store): Promise<PluginState> {
  return readPluginStateOf(internalsOf(store).backend);
}
