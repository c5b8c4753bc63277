import type * as LcManager from "@langchain/core/callbacks/manager";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { loadOptionalPeer } from "../../core/index.js";

/**
 * Two configs' callbacks as one (`withConfig` defaults under a call's own), each handler once, as
 * LangChain's `mergeConfigs` does: two lists are joined; with a `CallbackManager` on either side,
 * a copy of it gets the other side's handlers (two managers: the call's gets the defaults').
 *
 * @example
 * mergeCallbacks([bound], [perCall]); // [bound, perCall]
 */
export function mergeCallbacks(base: Callbacks, provided: Callbacks): Callbacks {
  if (Array.isArray(base) && Array.isArray(provided)) return [...base, ...provided];
  // A manager exists, so @langchain/core is loaded already.
  const { ensureHandler } = loadOptionalPeer<typeof LcManager>("@langchain/core/callbacks/manager");
  const manager = Array.isArray(provided) ? base : provided;
  const other = Array.isArray(provided) ? provided : base;
  const merged = (manager as LcManager.CallbackManager).copy();
  const handlers = Array.isArray(other)
    ? other.map(ensureHandler)
    : (other as LcManager.CallbackManager).inheritableHandlers;
  for (const handler of handlers) merged.addHandler(handler, true);
  return merged;
}
