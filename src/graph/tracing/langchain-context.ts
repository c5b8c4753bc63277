import { AsyncLocalStorage } from "node:async_hooks";
import type { RunConfig } from "../types.js";

/**
 * LangChain's context storage, reached through the global keys `@langchain/core` itself uses
 * (`Symbol.for`, so every copy of LangChain shares them): the AsyncLocalStorage instance, and
 * where its store keeps the config of the runnable running (what `ensureConfig` reads when a
 * model or tool is called without a config).
 */
const STORAGE_KEY = Symbol.for("ls:tracing_async_local_storage");
const CHILD_CONFIG_KEY = Symbol.for("lc:child_config");
const CONTEXT_VARIABLES_KEY = Symbol.for("lc:context_variables");

type Store = Record<string | symbol, unknown> & { extra?: Record<symbol, unknown> };

function storage(): AsyncLocalStorage<Store> {
  const global = globalThis as Record<symbol, unknown>;
  // As LangChain's initializeGlobalInstance (and LangGraph.js's entry point): one per process.
  global[STORAGE_KEY] ??= new AsyncLocalStorage<Store>();
  return global[STORAGE_KEY] as AsyncLocalStorage<Store>;
}

/**
 * Runs `fn` with `config` as LangChain's current config, without loading `@langchain/core`: a
 * model or tool a node calls without passing its config then reports to the run's stream
 * handlers (`messages`, `tools`, v3), as in LangGraph.js, which runs every node in that context.
 * A traced run does the same through LangChain itself (RunTrace.scope).
 *
 * @example
 * runInLangChainContext(nodeConfig, () => node(state, nodeConfig));
 */
export function runInLangChainContext<T>(config: RunConfig, fn: () => T): T {
  const als = storage();
  const previous = als.getStore();
  const store: Store = { extra: { [CHILD_CONFIG_KEY]: config } };
  // LangChain's context variables (setContextVariable) live on across the node, as LangChain
  // keeps them when it enters a runnable.
  if (previous?.[CONTEXT_VARIABLES_KEY] !== undefined)
    store[CONTEXT_VARIABLES_KEY] = previous[CONTEXT_VARIABLES_KEY];
  return als.run(store, fn);
}
