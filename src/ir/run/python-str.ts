import { formatNumber } from "../python-json.js";

/**
 * What Python's `str()` writes for a JSON value: the text a template-style run mirrors a state
 * field as (`(verdict (value "pass"))`), so rules written for Stargraph, which mirrors
 * `str(value)`, match the same text. Strings as they are; `True`/`False`/`None`; numbers as
 * Python writes them (`0.5`, `1e-05`); lists and objects as Python's `repr` of them
 * (`['a', 1]`, `{'k': True}`).
 *
 * @example
 * pythonStr({ ok: true, tags: ["a"] }) // "{'ok': True, 'tags': ['a']}"
 */
export function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  switch (typeof value) {
    case "string":
      return stringRepr(value);
    case "boolean":
      return value ? "True" : "False";
    case "number":
      return formatNumber(value);
    case "bigint":
      return value.toString();
    case "object":
      if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
      return `{${Object.entries(value)
        .map(([key, item]) => `${stringRepr(key)}: ${pythonRepr(item)}`)
        .join(", ")}}`;
    default:
      return String(value);
  }
}

const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Python's `repr(str)`: single quotes unless the text holds one and no double quote. */
function stringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === quote) out += `\\${char}`;
    else if (ESCAPES[char] !== undefined) out += ESCAPES[char];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += char;
  }
  return `${quote}${out}${quote}`;
}
