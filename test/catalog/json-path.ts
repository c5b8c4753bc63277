/**
 * The JSONPath subset the conformance cases use (RFC 9535): `$`, `.name`, `['name']`, `[n]`,
 * `[*]`, and `.length` of an array. A path through a wildcard yields the list of matches.
 */
export function evaluateJsonPath(
  document: unknown,
  path: string,
): { found: boolean; value: unknown } {
  if (!path.startsWith("$")) throw new Error(`JSONPath must start with $: ${path}`);
  const segments: (string | number | "*")[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]|\[\*\]|\.\*/y;
  let at = 1;
  while (at < path.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(path);
    if (!match) throw new Error(`unsupported JSONPath at ${at}: ${path}`);
    at = pattern.lastIndex;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(match[3]);
    else if (match[4] !== undefined) segments.push(match[4]);
    else segments.push("*");
  }
  let current: unknown[] = [document];
  let wildcard = false;
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (segment === "*") {
        wildcard = true;
        if (Array.isArray(value)) next.push(...value);
        else if (value && typeof value === "object") next.push(...Object.values(value));
      } else if (typeof segment === "number") {
        if (Array.isArray(value) && segment < value.length) next.push(value[segment]);
      } else if (Array.isArray(value) && segment === "length") {
        next.push(value.length);
      } else if (value && typeof value === "object" && Object.hasOwn(value, segment)) {
        next.push((value as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  if (wildcard) return { found: true, value: current };
  return current.length === 0
    ? { found: false, value: undefined }
    : { found: true, value: current[0] };
}
