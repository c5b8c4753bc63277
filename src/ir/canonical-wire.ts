/**
 * The canonical form's data in one walk: what `sortedCopy(toWire(schema, value))` gives (wire
 * data, defaults left out, every object's keys inserted in sorted order), without building the
 * unsorted wire copy first. Objects of a schema are written in their shape's sorted key order,
 * computed once per shape.
 */
import { type FieldPlan, fieldsOf, isDefault, type SchemaNode, unionOption } from "./dump.js";
import { differsFromJavaScript } from "./python-json.js";

/** Returned when the native JSON writer would differ from Python's (see dumpsCanonical). */
export const SLOW_PATH: unique symbol = Symbol("needs the Python-exact writer");

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const HIGH_UNIT = /[\ud800-\uffff]/;

/** True when JavaScript would not keep `key` where it was inserted, or may sort it unlike Python. */
function unsafeKey(key: string): boolean {
  return ARRAY_INDEX.test(key) || HIGH_UNIT.test(key);
}

interface SortedField extends FieldPlan {
  readonly unsafe: boolean;
}

const sortedFields = new WeakMap<object, readonly SortedField[]>();

function sortedFieldsOf(shape: Record<string, SchemaNode>): readonly SortedField[] {
  let fields = sortedFields.get(shape);
  if (fields === undefined) {
    // Keys are unique within a shape; `<` orders them as the default sort does (UTF-16 units).
    fields = fieldsOf(shape)
      .map((field) => ({ ...field, unsafe: unsafeKey(field.key) }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    sortedFields.set(shape, fields);
  }
  return fields;
}

/** Wire data of `value` (parsed by `schema`) with sorted keys, or SLOW_PATH. */
export function sortedWire(schema: SchemaNode, value: unknown): unknown {
  const def = schema._zod.def;
  switch (def.type) {
    case "default":
    case "optional":
    case "nullable":
      if (value === null || value === undefined) return value;
      return sortedWire(def.innerType as SchemaNode, value);
    case "object": {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of sortedFieldsOf(def.shape ?? {})) {
        const fieldValue = record[field.key];
        if (fieldValue === undefined || isDefault(field, fieldValue)) continue;
        if (field.unsafe) return SLOW_PATH;
        const copy = sortedWire(field.schema, fieldValue);
        if (copy === SLOW_PATH) return SLOW_PATH;
        if (copy !== undefined) out[field.key] = copy;
      }
      return out;
    }
    case "array": {
      const items = value as unknown[];
      const out: unknown[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) {
        const item = sortedWire(def.element as SchemaNode, items[i]);
        if (item === SLOW_PATH) return SLOW_PATH;
        out[i] = item;
      }
      return out;
    }
    case "record": {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(record).sort()) {
        if (unsafeKey(key)) return SLOW_PATH;
        const item = record[key];
        if (item === undefined) continue;
        const copy = sortedWire(def.valueType as SchemaNode, item);
        if (copy === SLOW_PATH) return SLOW_PATH;
        if (copy !== undefined) out[key] = copy;
      }
      return out;
    }
    case "union": {
      const option = unionOption(def, value);
      return option ? sortedWire(option, value) : sortedCopy(value);
    }
    default:
      return sortedCopy(value);
  }
}

/** Plain data with sorted keys, or SLOW_PATH when the native writer would differ from Python. */
export function sortedCopy(value: unknown): unknown {
  if (typeof value === "number") return differsFromJavaScript(value) ? SLOW_PATH : value;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i]);
      if (item === SLOW_PATH) return SLOW_PATH;
      out[i] = item;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (unsafeKey(key)) return SLOW_PATH;
    const item = record[key];
    if (item === undefined) continue;
    const copy = sortedCopy(item);
    if (copy === SLOW_PATH) return SLOW_PATH;
    out[key] = copy;
  }
  return out;
}
