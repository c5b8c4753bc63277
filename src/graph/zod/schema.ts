/**
 * JSON schemas of a graph built on zod objects, as `@langchain/langgraph/zod/schema` gives them
 * (what LangGraph Studio reads): fields keep their registry extras (`langgraph_type: "messages"`),
 * update and input schemas are partial and take a reducer's own update schema.
 *
 * @example
 * import { getInputTypeSchema } from "keel/zod";
 * getInputTypeSchema(graph); // { $schema: "http://json-schema.org/draft-07/schema#", properties: { … } }
 */
import type * as LcJsonSchema from "@langchain/core/utils/json_schema";
import { loadOptionalPeer } from "../../core/index.js";
import { schemaSourcesOf } from "../schema/graph-schemas.js";
import { StateSchema } from "../schema/state-schema.js";
import { metaOf } from "./meta.js";
import { isZodObject } from "./zod-state.js";

type JsonSchema = Record<string, unknown>;

interface ZodObjectLike {
  shape: Record<string, object>;
  extend(shape: Record<string, unknown>): ZodObjectLike;
  partial(): ZodObjectLike;
}

interface Describable {
  describe(text: string): object;
}

const EXTRA_PREFIX = "lg:";

/** The graph's state schema (every key, as stored). */
export function getStateTypeSchema(graph: unknown): JsonSchema | undefined {
  return jsonOf(schemaOf(graph, "state"), { partial: false, reducers: false });
}

/** What a node may return: every key optional, a reducer key taking its reducer's update schema. */
export function getUpdateTypeSchema(graph: unknown): JsonSchema | undefined {
  return jsonOf(schemaOf(graph, "state"), { partial: true, reducers: true });
}

/** What `invoke` accepts (the `input` schema, else the state's update schema). */
export function getInputTypeSchema(graph: unknown): JsonSchema | undefined {
  return jsonOf(schemaOf(graph, "input") ?? schemaOf(graph, "state"), {
    partial: true,
    reducers: true,
  });
}

/** What `invoke` returns (the `output` schema, else the state schema). */
export function getOutputTypeSchema(graph: unknown): JsonSchema | undefined {
  return jsonOf(schemaOf(graph, "output") ?? schemaOf(graph, "state"), {
    partial: false,
    reducers: false,
  });
}

/** The schema of `config.configurable` / the run context, when the graph declared one. */
export function getConfigTypeSchema(graph: unknown): JsonSchema | undefined {
  const schema = schemaOf(graph, "context") ?? schemaOf(graph, "config");
  // Fields keep their extras (`langgraph_nodes`, `langgraph_type: "prompt"`), as for the state.
  return jsonOf(schema, { partial: false, reducers: false });
}

function schemaOf(
  graph: unknown,
  which: "state" | "input" | "output" | "context" | "config",
): ZodObjectLike | StateSchema | undefined {
  const sources = schemaSourcesOf(graph);
  if (sources === undefined) return undefined;
  const state = sources.state as Record<string, unknown> | undefined;
  const options = sources.options as Record<string, unknown> | undefined;
  const candidates: unknown[] =
    which === "state"
      ? [state, state?.state, state?.stateSchema, state?.input]
      : // The second argument itself is the context schema in `new StateGraph(state, context)`.
        [options?.[which], state?.[which], ...(which === "context" ? [options] : [])];
  for (const candidate of candidates) {
    if (isZodObject(candidate)) return candidate as unknown as ZodObjectLike;
    if (StateSchema.isInstance(candidate)) return candidate;
  }
  return undefined;
}

function jsonOf(
  schema: ZodObjectLike | StateSchema | undefined,
  options: { partial: boolean; reducers: boolean },
): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  // A `StateSchema` (zod 4 or any Standard Schema fields) describes itself.
  if (StateSchema.isInstance(schema))
    return options.partial ? schema.getInputJsonSchema() : schema.getJsonSchema();
  const shape: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const meta = metaOf(field);
    let out: object =
      options.reducers && meta?.reducer?.schema !== undefined
        ? (meta.reducer.schema as object)
        : field;
    const extra = meta?.jsonSchemaExtra;
    // Extras ride in the description through the converter, then are unpacked (as LangGraph.js does).
    if (extra !== undefined)
      out = (out as Describable).describe(EXTRA_PREFIX + JSON.stringify(extra));
    shape[key] = out;
  }
  const extended = schema.extend(shape);
  return toJson(options.partial ? extended.partial() : extended);
}

function toJson(schema: object): JsonSchema {
  const { toJsonSchema } = loadOptionalPeer<typeof LcJsonSchema>(
    "@langchain/core/utils/json_schema",
  );
  return unpackExtras(toJsonSchema(schema as never)) as JsonSchema;
}

function unpackExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unpackExtras);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = unpackExtras(item);
  const description = out.description;
  if (typeof description === "string" && description.startsWith(EXTRA_PREFIX)) {
    delete out.description;
    Object.assign(out, JSON.parse(description.slice(EXTRA_PREFIX.length)));
  }
  return out;
}
