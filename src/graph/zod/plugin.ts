import { z as z3 } from "zod/v3";
import { z as z4 } from "zod/v4";
import { type SchemaMeta, withLangGraph, zodDefaultOf } from "./meta.js";

/**
 * `schema.langgraph.reducer(fn, updateSchema)` and `schema.langgraph.metadata(extra)` on every zod
 * 3 and zod 4 schema, as importing `@langchain/langgraph/zod` adds them (LangGraph.js's zod 3
 * state idiom). Installed once per zod copy when `keel/zod` is loaded; each call is `withLangGraph`.
 *
 * @example
 * import { z } from "zod/v3";
 * import "keel/zod";
 * const State = z.object({
 *   items: z.array(z.string()).default(() => []).langgraph.reducer((a, b) => a.concat(b)),
 * });
 */
export interface LangGraphZodMethods<S> {
  /** The field's reducer (and the schema of what nodes write); zod's `.default()` stays its default. */
  reducer(fn: (current: never, update: never) => unknown, updateSchema?: unknown): S;
  /** JSON-schema extras for the field (`langgraph_type`, `langgraph_nodes`, …). */
  metadata(jsonSchemaExtra: NonNullable<SchemaMeta["jsonSchemaExtra"]>): S;
}

/**
 * The `.langgraph` methods of `schema`: what `schema.langgraph` returns once `keel/zod` is loaded
 * (each is `withLangGraph`; `reducer` keeps zod's `.default()` as the key's default).
 *
 * @example
 * const items = langgraphMethods(z.array(z.string()).default(() => [])).reducer((a, b) => a.concat(b));
 */
export function langgraphMethods<S extends object>(schema: S): LangGraphZodMethods<S> {
  return {
    metadata: (jsonSchemaExtra) => withLangGraph(schema, { jsonSchemaExtra }),
    reducer: (fn, updateSchema) => {
      const initial = zodDefaultOf(schema);
      return withLangGraph(schema, {
        reducer: { fn: fn as never, schema: updateSchema },
        ...(initial ? { default: initial as () => never } : {}),
      });
    },
  };
}

// One mark shared by every copy of Keel loaded in the process, so a prototype is patched once.
const installed = Symbol.for("keel.zod.langgraph");

/**
 * Adds the `langgraph` getter to a zod prototype. If another library (`@langchain/langgraph/zod`)
 * already added one, it is left alone: that library's metadata is its own, so in a process that
 * loads both, use `withLangGraph` for Keel graphs.
 */
function install(prototype: object): void {
  if (Object.hasOwn(prototype, installed)) return;
  Object.defineProperty(prototype, installed, { value: true });
  if (Object.hasOwn(prototype, "langgraph")) return;
  Object.defineProperty(prototype, "langgraph", {
    configurable: true,
    get(this: object): LangGraphZodMethods<object> {
      return langgraphMethods(this);
    },
  });
}

install(z3.ZodType.prototype);
install(z4.ZodType.prototype);
