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

/** The default a zod 3 or zod 4 `.default(…)` gives, as a function; undefined without one. */
export function zodDefaultOf(schema: object): (() => unknown) | undefined {
  const v3 = (schema as { _def?: { typeName?: unknown; defaultValue?: unknown } })._def;
  if (v3?.typeName === "ZodDefault" && typeof v3.defaultValue === "function")
    return v3.defaultValue as () => unknown;
  const v4 = (schema as { _zod?: { def?: { type?: unknown; defaultValue?: unknown } } })._zod?.def;
  // zod 4's `defaultValue` is a getter that calls the default function (or copies the value).
  if (v4?.type === "default") return () => v4.defaultValue;
  return undefined;
}

/** The metadata of a messages key: the messages reducer, an empty default, `langgraph_type`. */
export const MessagesZodMeta: SchemaMeta<never, never> = {
  reducer: { fn: messagesStateReducer as never },
  default: () => [] as never,
  jsonSchemaExtra: { langgraph_type: "messages" },
};
