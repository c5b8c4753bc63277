/**
 * JSON text of primitives without calling `JSON.stringify`, whose fixed cost per call (a few
 * hundred nanoseconds) dominates for the short strings and numbers a checkpoint is mostly made
 * of (channel names, task ids, versions, counters). Both give exactly `JSON.stringify`'s text.
 */

/** Strings longer than this go to `JSON.stringify`, which scans long text faster than a JS loop. */
const SHORT = 256;

/** `JSON.stringify(text)`. */
export function jsonString(text: string): string {
  if (text.length > SHORT) return JSON.stringify(text);
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    // Quotes, backslashes and control characters are escaped; surrogates may need it.
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** `JSON.stringify(value)` for a number (`String` is cached by the engine; JSON has no NaN). */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

/** `JSON.stringify(value)` for a version or any other value that is usually a number. */
export function jsonOf(value: unknown): string {
  if (typeof value === "number") return jsonNumber(value);
  if (typeof value === "string") return jsonString(value);
  return JSON.stringify(value) ?? "null";
}

/** Names whose JSON text `keyJson` keeps; past this it starts over (names are a graph's few). */
const MAX_KEYS = 4096;
const keyTexts = new Map<string, string>();

/**
 * `jsonString(name)` for a name that recurs (a channel, a node, a tool), made once per name: a
 * step writes the same few names into its row at every step, and each fresh text was two short
 * strings allocated a name.
 *
 * @example keyJson("messages") // '"messages"', from the cache after the first call
 */
export function keyJson(name: string): string {
  let text = keyTexts.get(name);
  if (text === undefined) {
    if (keyTexts.size >= MAX_KEYS) keyTexts.clear();
    text = jsonString(name);
    keyTexts.set(name, text);
  }
  return text;
}
