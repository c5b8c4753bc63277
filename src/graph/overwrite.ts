/** The key of the wire form of an overwrite: `{ __overwrite__: value }`. Same as LangGraph.js. */
export const OVERWRITE = "__overwrite__";

/**
 * Writes a value to a key with a reducer *without* the reducer: the key takes `value` as is.
 * A step may overwrite a key once; other writes in the same step are dropped after it.
 *
 * @example
 * return { items: new Overwrite([]) }; // empties a list that normally appends
 */
export class Overwrite<Value = unknown> {
  readonly lg_name = "Overwrite";
  constructor(readonly value: Value) {}
}

/** An overwrite's value, for a write that is an `Overwrite` or its `{ __overwrite__ }` wire form. */
export function overwriteOf(write: unknown): { value: unknown } | undefined {
  if (write instanceof Overwrite) return { value: write.value };
  if (typeof write !== "object" || write === null) return undefined;
  if ((write as { lg_name?: unknown }).lg_name === "Overwrite" && "value" in write)
    return { value: (write as { value: unknown }).value };
  const keys = Object.keys(write);
  if (keys.length === 1 && keys[0] === OVERWRITE)
    return { value: (write as Record<string, unknown>)[OVERWRITE] };
  return undefined;
}
