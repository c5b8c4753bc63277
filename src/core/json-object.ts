/**
 * The JSON object `text` holds, or undefined when it is not valid JSON or holds something else
 * (an array, a string, null): for stored or user text where only an object means anything.
 *
 * @example
 * parseJsonObject('{"a":1}'); // { a: 1 }
 * parseJsonObject("[1]"); // undefined
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
