import type { BaseStore } from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../../graph/index.js";
import type { NodeFactory, StoreProvider } from "../../ir/index.js";
import type { DecisionMemory } from "../service/index.js";
import { DecisionMemoryStore } from "./memory-store.js";

/** Options of a context-injection node. */
export interface MemoryContextNodeOptions {
  /**
   * The memory to read; default: the graph's `config.store` when it is a DecisionMemoryStore
   * (`compile({ store })`, or an IR document's `keel.memory` binding).
   */
  memory?: DecisionMemory;
  /** The state field holding the prompt (default: the last message of `messages`). */
  promptField?: string;
  /** The state field the context is written to (default `memory_context`). */
  outputField?: string;
  /** The memory namespace searched (default: the memory's). */
  namespace?: string;
  /** At most this many records (default 3). */
  limit?: number;
  /** Keep hits scoring at least this (default 0.3). */
  threshold?: number;
}

type NodeState = Record<string, unknown>;

/**
 * A graph node that puts the memory's context for the prompt into the state: the active
 * records relevant to it, as `[KEEL KNOWLEDGE BASE ACTIVE]\n{…}` ("" when nothing is relevant).
 * The run's thread is the session, so what this thread's last 10 injections held is not
 * injected again. Each injection is a `context_injection` event.
 *
 * @example
 * builder.addNode("recall", memoryContextNode({ promptField: "question" }))
 *   .addEdge("recall", "answer") // the answer node reads state.memory_context
 *   .compile({ store: new DecisionMemoryStore(store) });
 */
export function memoryContextNode(
  options: MemoryContextNodeOptions = {},
): (state: NodeState, config?: RunConfig) => Promise<NodeState> {
  const outputField = options.outputField ?? "memory_context";
  return async (state, config) => {
    const memory = options.memory ?? memoryOf(config?.store);
    const prompt = promptOf(state, options.promptField);
    if (prompt.trim() === "") return { [outputField]: "" };
    const thread = config?.configurable?.thread_id;
    const { text } = await memory.context(prompt, {
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
      ...(typeof thread === "string" ? { session: thread } : {}),
    });
    return { [outputField]: text };
  };
}

function memoryOf(store: BaseStore | undefined): DecisionMemory {
  if (store instanceof DecisionMemoryStore) return store.memory;
  throw new KeelError(
    "MEMORY_UNAVAILABLE",
    "The memory context node has no decision memory: the graph's store is not a DecisionMemoryStore.",
    {
      hint: 'Compile the graph with { store: new DecisionMemoryStore(store) }, bind a store with provider "keel.memory" in the IR document, or pass memoryContextNode({ memory }).',
    },
  );
}

function promptOf(state: NodeState, field: string | undefined): string {
  if (field !== undefined) {
    const value = state[field];
    return typeof value === "string" ? value : "";
  }
  const messages = state.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "";
  const last = messages[messages.length - 1] as { content?: unknown } | string;
  if (typeof last === "string") return last;
  const content = last?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : ((part as { text?: string }).text ?? "")))
      .join(" ");
  }
  return "";
}

/**
 * The IR node kind `memory_context`: the context-injection node, configured by the node's
 * `config` (`prompt_field`, `output_field`, `namespace`, `limit`, `threshold`, and `store`, the
 * binding name when the document binds several stores).
 *
 * @example
 * registerNodeKinds({ memory_context: memoryContextKind() });
 * // { "id": "recall", "kind": "memory_context", "config": { "prompt_field": "question" } }
 */
export function memoryContextKind(): NodeFactory {
  return (node) => {
    const settings = node.config;
    const text = (name: string) =>
      typeof settings[name] === "string" ? (settings[name] as string) : undefined;
    const number = (name: string) =>
      typeof settings[name] === "number" ? (settings[name] as number) : undefined;
    const binding = text("store");
    const promptField = text("prompt_field");
    const namespace = text("namespace");
    const limit = number("limit");
    const threshold = number("threshold");
    return async (state, context) => {
      const store = binding === undefined ? context.config.store : context.stores[binding];
      const run = memoryContextNode({
        memory: memoryOf(store),
        outputField: text("output_field") ?? "memory_context",
        ...(promptField !== undefined ? { promptField } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(threshold !== undefined ? { threshold } : {}),
      });
      return run(state, context.config);
    };
  };
}

/**
 * The `keel.memory` store provider: an IR document's `stores: [{ name, provider: "keel.memory" }]`
 * binds the decision memory of the run's kernel database as the graph's store.
 *
 * @example
 * registerStoreProviders({ "keel.memory": memoryStoreProvider() });
 */
export function memoryStoreProvider(): StoreProvider {
  return (_ref, { kernel }) => {
    if (!kernel) {
      throw new KeelError(
        "MEMORY_UNAVAILABLE",
        "The keel.memory store needs the run's kernel database, and this compile has none.",
        { hint: "Pass storeContext: { kernel: store } to compileDocument, or run with keel run." },
      );
    }
    return new DecisionMemoryStore(kernel);
  };
}
