/**
 * The deepest nesting of arrays and objects Keel accepts in user data (run input, answers,
 * documents, payloads). Deeper values pass `JSON.parse` but overflow the stack of the recursive
 * code that later walks them (canonical JSON, hashing, the rules' facts), so validation refuses
 * them up front with a problem rather than an `INTERNAL` error mid-run.
 */
export const MAX_JSON_DEPTH = 256;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly key: string | null;
  readonly parent: Frame | null;
}

/**
 * The JSON Pointer of the first array or object nested more than `max` levels deep in `value`
 * (the value itself is level 1), or undefined when it is within the limit. Walks the value with
 * an explicit stack, so it never overflows itself.
 *
 * @example
 * jsonTooDeepAt([[[1]]], 2) // "/0/0"
 */
export function jsonTooDeepAt(value: unknown, max: number = MAX_JSON_DEPTH): string | undefined {
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  const seen = new Set<object>();
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const current = frame.value;
    if (current === null || typeof current !== "object") continue;
    if (frame.depth > max) return pointerOf(frame);
    // A cycle is no JSON value; it is not deep either (what walks it will say what is wrong).
    if (seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], depth: frame.depth + 1, key: String(i), parent: frame });
    } else {
      for (const key of Object.keys(current))
        stack.push({
          value: (current as Record<string, unknown>)[key],
          depth: frame.depth + 1,
          key,
          parent: frame,
        });
    }
  }
  return undefined;
}

function pointerOf(frame: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | null = frame; at !== null && at.key !== null; at = at.parent)
    keys.push(at.key);
  if (keys.length === 0) return "/";
  return keys
    .reverse()
    .map((key) => `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}
