import type { z } from "zod";

/**
 * Turns a parsed model into plain JSON data in the model's declaration order, leaving out every
 * field whose value equals its default (Pydantic's `model_dump(mode="json", exclude_defaults=True)`).
 * Discriminators (`kind`) have no default, so they are always written.
 *
 * It walks the zod schema itself, so models and serialisation cannot drift apart.
 */
export function toWire(schema: z.ZodType, value: unknown): unknown {
  return walk(schema as unknown as SchemaNode, value);
}

/** The slice of zod 4's internal definition this walker reads. */
interface SchemaNode {
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
    case "array":
      return (value as unknown[]).map((item) => walk(def.element as SchemaNode, item));
    case "record":
      return walkRecord(def.valueType as SchemaNode, value as Record<string, unknown>);
    case "union":
      return walkUnion(def, value);
    default:
      return value;
  }
}

function walkObject(shape: Record<string, SchemaNode>, value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const fieldValue = value[key];
    if (fieldValue === undefined) continue;
    const fieldDef = field._zod.def;
    if (fieldDef.type === "default" && deepEqual(fieldValue, fieldDef.defaultValue)) continue;
    out[key] = walk(field, fieldValue);
  }
  return out;
}

function walkRecord(valueType: SchemaNode, value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = walk(valueType, item);
  return out;
}

function walkUnion(def: SchemaDef, value: unknown): unknown {
  const key = def.discriminator;
  if (key === undefined || value === null || typeof value !== "object") return value;
  const tag = (value as Record<string, unknown>)[key];
  const option = def.options?.find((candidate) => {
    const literal = candidate._zod.def.shape?.[key]?._zod.def;
    return literal?.values?.includes(tag) === true;
  });
  return option ? walk(option, value) : value;
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
