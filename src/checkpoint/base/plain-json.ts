/**
 * True when native `JSON.stringify` writes `value` exactly and reads back the same: strings,
 * booleans, finite numbers, null, arrays and plain objects, nested at most `maxDepth` levels.
 * An object holding `reservedKey` (the serializer's tag for values it encodes) is not plain.
 *
 * @example
 * isPlainJson({ a: [1, "x", null] }, 64) // true
 * isPlainJson({ when: new Date() }, 64) // false: a class instance
 */
export function isPlainJson(
  value: unknown,
  maxDepth: number,
  reservedKey?: string,
  depth = 0,
): boolean {
  if (depth > maxDepth) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const item of value) {
          if (!isPlainJson(item, maxDepth, reservedKey, depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (key === reservedKey) return false;
        const field = (value as Record<string, unknown>)[key];
        if (!isPlainJson(field, maxDepth, reservedKey, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
