import { jsonOf } from "../base/index.js";

/*
 * The engine's versions are an update count plus a random fraction (`nextChannelVersion`), and
 * `String()` of such a double is V8's shortest-digits conversion (~0.3 µs; its number-to-string
 * cache rarely holds them). A step converts each version it writes (the changed channels'
 * entries), then the next step converts the same numbers again in `versions_seen` (what the node
 * that ran saw). The last few numbers converted are kept with their text, so the second is a
 * few comparisons.
 */

/** How many recent numbers are kept (a step writes a handful of versions). */
const SLOTS = 8;
const numbers = new Float64Array(SLOTS).fill(Number.NaN);
const texts: string[] = new Array<string>(SLOTS).fill("");
let next = 0;

/** `JSON.stringify(version)`, remembering the text of the last few numbers. */
export function versionText(version: unknown): string {
  if (typeof version !== "number") return jsonOf(version);
  // NaN never equals a slot (JSON writes it as null, like jsonOf).
  for (let slot = 0; slot < SLOTS; slot++) if (numbers[slot] === version) return texts[slot]!;
  const text = jsonOf(version);
  numbers[next] = version;
  texts[next] = text;
  next = (next + 1) % SLOTS;
  return text;
}
