import type { z } from "zod";

/**
 * Turns a parsed model into plain JSON data in the model's declaration order, leaving out every
 * field whose value equals its default (Pydantic's `model_dump(mode="json", exclude_defaults=True)`).
 * An action's `kind` is always written, although IR 1.1.0 gives each variant a default one: it
 * is the union's discriminator, and a document without it would not load back.
 *
 * It walks the zod schema itself, so models and serialisation cannot drift apart.
 */
export function toWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema as unknown as SchemaNode, value);
}

/** The slice of zod 4's internal definition this walker reads. */
export interface SchemaNode {
  _zod: { def: SchemaDef };
}

interface SchemaDef {
  type: string;
  shape?: Record<string, SchemaNode>;
  innerType?: SchemaNode;
  element?: SchemaNode;
  options?: SchemaNode[];
  discriminator?: string;
  valueType?: SchemaNode;
  defaultValue?: unknown;
  values?: unknown[];
}

/** A field of an object schema: its key, its schema and whether it has a default. */
export interface FieldPlan {
  readonly key: string;
  readonly schema: SchemaNode;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
}

// Per schema, computed once: the walkers visit every object of a document, and a large
// document has thousands of the same shape.
const fieldPlans = new WeakMap<object, readonly FieldPlan[]>();
const unionOptions = new WeakMap<object, Map<unknown, SchemaNode>>();

/** The fields of an object schema's `shape`, in declaration order. */
export function fieldsOf(shape: Record<string, SchemaNode>): readonly FieldPlan[] {
  let plan = fieldPlans.get(shape);
  if (plan === undefined) {
    plan = Object.entries(shape).map(([key, schema]) => {
      const def = schema._zod.def;
      const tag = key === "kind" && def.innerType?._zod.def.type === "literal";
      return {
        key,
        schema,
        hasDefault: def.type === "default" && !tag,
        defaultValue: def.defaultValue,
      };
    });
    fieldPlans.set(shape, plan);
  }
  return plan;
}

/** True when `value` is the field's default (a field Pydantic's exclude_defaults leaves out). */
export function isDefault(field: FieldPlan, value: unknown): boolean {
  return field.hasDefault && deepEqual(value, field.defaultValue);
}

/** The option of a discriminated union `value` belongs to (undefined: none, or not an object). */
export function unionOption(def: SchemaDef, value: unknown): SchemaNode | undefined {
  const key = def.discriminator;
  if (key === undefined || value === null || typeof value !== "object") return undefined;
  let byTag = unionOptions.get(def);
  if (byTag === undefined) {
    byTag = new Map();
    // The first option listing a tag wins, as a search in option order would find it.
    for (const option of def.options ?? []) {
      const field = option._zod.def.shape?.[key]?._zod.def;
      const literal = field?.type === "default" ? field.innerType?._zod.def : field;
      for (const tag of literal?.values ?? []) {
        if (!byTag.has(tag)) byTag.set(tag, option);
      }
    }
    unionOptions.set(def, byTag);
  }
  return byTag.get((value as Record<string, unknown>)[key]);
}

function walk(schema: SchemaNode, value: unknown): unknown {
  const def = schema._zod.def;
  switch (def.type) {
    case "default":
    case "optional":
    case "nullable":
      if (value === null || value === undefined) return value;
      return walk(def.innerType as SchemaNode, value);
    case "object":
      return walkObject(def.shape ?? {}, value as Record<string, unknown>);
    case "array": {
      const items = value as unknown[];
      const out: unknown[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) out[i] = walk(def.element as SchemaNode, items[i]);
      return out;
    }
    case "record":
      return walkRecord(def.valueType as SchemaNode, value as Record<string, unknown>);
    case "union": {
      const option = unionOption(def, value);
      return option ? walk(option, value) : value;
    }
    default:
      return value;
  }
}

function walkObject(shape: Record<string, SchemaNode>, value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(shape)) {
    const fieldValue = value[field.key];
    if (fieldValue === undefined || isDefault(field, fieldValue)) continue;
    out[field.key] = walk(field.schema, fieldValue);
  }
  return out;
}

function walkRecord(valueType: SchemaNode, value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = walk(valueType, item);
  return out;
}

/** Structural equality of JSON data (the only values an IR model holds). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}
