import { ReducedValue } from "../schema/reduced-value.js";
import { isStandardSchema, type StandardSchemaLike } from "../schema/standard-schema.js";
import { StateSchema } from "../schema/state-schema.js";
import { metaOf, zodDefaultOf } from "./meta.js";

/** True for a zod 3 or zod 4 object schema (`z.object({...})`). */
export function isZodObject(value: unknown): value is { shape: Record<string, object> } {
  if (typeof value !== "object" || value === null) return false;
  const v4 = (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type === "object";
  const v3 = (value as { _def?: { typeName?: unknown } })._def?.typeName === "ZodObject";
  return (v4 || v3) && typeof (value as { shape?: unknown }).shape === "object";
}

/**
 * A zod object as a `StateSchema`: each field validates its key, and the field's registry
 * metadata (see `withLangGraph`) gives its reducer and default. Zod's own `.default()`, when the
 * field has one, is the default instead of the registry's.
 */
export function stateSchemaFromZod(object: { shape: Record<string, object> }): StateSchema {
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object.shape)) {
    if (!isStandardSchema(field)) continue;
    const meta = metaOf(field);
    // zod's own `.default()` wins over the registry's, as in LangGraph.js (it applies first).
    const schema = meta?.default && !zodDefaultOf(field) ? withDefault(field, meta.default) : field;
    fields[key] = meta?.reducer
      ? new ReducedValue(schema, {
          reducer: meta.reducer.fn as (a: unknown, b: unknown) => unknown,
          inputSchema: isStandardSchema(meta.reducer.schema) ? meta.reducer.schema : anything,
        })
      : schema;
  }
  return new StateSchema(fields, { validateUpdates: true });
}

// A reducer's updates need not match the value's schema (a list key takes one item); without a
// schema for them, LangGraph.js does not check them either.
const anything: StandardSchemaLike = { "~standard": { validate: (value) => ({ value }) } };

function withDefault(schema: StandardSchemaLike, initial: () => unknown): StandardSchemaLike {
  return {
    "~standard": {
      validate: (value) =>
        value === undefined ? { value: initial() } : schema["~standard"].validate(value),
    },
  };
}
