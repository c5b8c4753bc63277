/**
 * The `slots` of an `assert` action: `""` (no slots) or the JSON text of an object, whose values
 * become the asserted fact's fields in order (seed 000: "a JSON-encoded slot dict").
 */
export type SlotsResult =
  | { ok: true; slots: Record<string, unknown> }
  | { ok: false; reason: string; actual: string };

/**
 * Parses an assert action's `slots` text without throwing.
 *
 * @example
 * parseSlots('{"queue":"refunds"}') // { ok: true, slots: { queue: "refunds" } }
 * parseSlots("null").ok // false: not an object
 */
export function parseSlots(text: string): SlotsResult {
  if (text === "") return { ok: true, slots: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})`, actual: text };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const what = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return { ok: false, reason: `JSON ${what}, not an object`, actual: text };
  }
  return { ok: true, slots: value as Record<string, unknown> };
}
