/**
 * Canonical JSON: object keys sorted by UTF-16 code unit, no insignificant whitespace.
 * Two equal values always serialise to the same bytes, so the result can be hashed.
 *
 * `asciiOnly` escapes every non-ASCII character as `\uXXXX`, which makes the output
 * byte-identical to Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))`.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown, options: { asciiOnly?: boolean } = {}): string {
  const text = stringifySorted(value);
  return options.asciiOnly ? escapeNonAscii(text) : text;
}

function stringifySorted(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`Cannot serialise ${typeof value} as JSON.`);
    return text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? "null" : stringifySorted(item))).join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  if (typeof (record as { toJSON?: unknown }).toJSON === "function") {
    return stringifySorted((record as { toJSON: () => unknown }).toJSON());
  }
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stringifySorted(record[key])}`).join(",")}}`;
}

function escapeNonAscii(text: string): string {
  return text.replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
