import { registry as zodRegistry } from "zod";
import { messagesStateReducer } from "../messages/index.js";

/**
 * What LangGraph.js lets a zod field say about its state key: a reducer (with the schema of what
 * nodes write, when that differs), a default, and JSON-schema extras (`langgraph_type`).
 */
export interface SchemaMeta<Value = unknown, Update = Value> {
  reducer?: {
    fn: (current: Value, update: Update) => Value;
    schema?: unknown;
  };
  default?: () => Value;
  jsonSchemaExtra?: { langgraph_type?: "prompt" | "messages"; [key: string]: unknown };
}

/**
 * The registry of state-key metadata: `z.array(z.string()).register(registry, { reducer: { fn }
 * })`, as with `@langchain/langgraph/zod`.
 *
 * @example
 * const State = z.object({
 *   items: z.array(z.string()).register(registry, { reducer: { fn: (a, b) => a.concat(b) }, default: () => [] }),
 * });
 * new StateGraph(State);
 */
export const registry = zodRegistry<SchemaMeta<never, never>>();

// zod 3 schemas cannot be registered in a zod 4 registry; `withLangGraph` keeps theirs here.
const legacy = new WeakMap<object, SchemaMeta<never, never>>();

/**
 * Attaches state-key metadata to a zod 3 or zod 4 schema and returns the schema.
 *
 * @example
 * const State = z.object({ n: withLangGraph(z.number(), { reducer: { fn: (a, b) => a + b }, default: () => 0 }) });
 */
export function withLangGraph<S extends object>(schema: S, meta: SchemaMeta<never, never>): S {
  if ("_zod" in schema) registry.add(schema as never, meta);
  else legacy.set(schema, meta);
  return schema;
}

/** The metadata of a field, from either registry. */
export function metaOf(schema: object): SchemaMeta | undefined {
  const found =
    "_zod" in schema ? (registry.get(schema as never) as SchemaMeta | undefined) : undefined;
  return found ?? (legacy.get(schema) as SchemaMeta | undefined);
}

/** The metadata of a messages key: the messages reducer, an empty default, `langgraph_type`. */
export const MessagesZodMeta: SchemaMeta<never, never> = {
  reducer: { fn: messagesStateReducer as never },
  default: () => [] as never,
  jsonSchemaExtra: { langgraph_type: "messages" },
};
