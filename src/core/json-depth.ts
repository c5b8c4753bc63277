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
  // Nearly every value is shallow: a bounded recursive pass that allocates nothing says so, and
  // only a value it finds deep (or cyclic) takes the exact walk below for the pointer.
  if (!nestsDeeper(value, 1, max)) return undefined;
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

/** True when `value` (at level `depth`) holds an array or object beyond level `max`. */
function nestsDeeper(value: unknown, depth: number, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === "object" && item !== null && nestsDeeper(item, depth + 1, max))
        return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    if (typeof item === "object" && item !== null && nestsDeeper(item, depth + 1, max)) return true;
  }
  return false;
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
