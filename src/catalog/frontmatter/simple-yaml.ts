/**
 * A reader for the plain subset of YAML most frontmatter is written in: `key: plain text`,
 * nested mappings by indentation, and `- plain text` lists. It gives exactly what the `yaml`
 * package gives for that subset, and `undefined` for anything else (quotes, block scalars,
 * comments, flow collections, anchors, tags, numbers, booleans, nulls, continuation lines,
 * duplicate keys, tabs), which the caller then hands to `yaml`. It exists for speed: the full
 * parser costs ~70 µs a block, a large part of a cold 10,000-file scan.
 */

type Value = string | Value[] | { [key: string]: Value } | null;

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
// Characters that cannot start a plain scalar, or that start something other than text.
const INDICATORS = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);
// Plain scalars the YAML 1.2 core schema reads as something other than a string (the `yaml`
// package's default schema): null, booleans, integers, floats. Any of them falls back.
const NOT_A_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
// The same as one expression: one test per key and value instead of eight.
const NOT_A_STRING_ANY = new RegExp(
  NOT_A_STRING.map((pattern) => `(?:${pattern.source})`).join("|"),
);
// Anything that is not plain single-line text without tabs or control characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const UNSAFE_TEXT = /[\t\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff\ufffe\uffff]/;

const LEADING_SPACES = /^ +/;
const TRAILING_SPACES = / +$/;
const trimSpaces = (text: string) => text.replace(TRAILING_SPACES, "");

class Unsupported extends Error {}

function plain(text: string): string {
  const value = trimSpaces(text);
  const first = value[0];
  if (
    first === undefined ||
    INDICATORS.has(first) ||
    value.includes(": ") ||
    value.includes(" #") ||
    value.endsWith(":")
  ) {
    throw new Unsupported();
  }
  if (NOT_A_STRING_ANY.test(value)) throw new Unsupported();
  return value;
}

interface Line {
  readonly indent: number;
  readonly text: string;
}

/**
 * Parses `raw` when it is a mapping in the plain subset; `undefined` when it is anything else
 * (the caller parses it with the full YAML parser).
 *
 * @example
 * parseSimpleYaml("name: deploy\nmetadata:\n  related:\n    - a.md");
 * // { name: "deploy", metadata: { related: ["a.md"] } }
 */
export function parseSimpleYaml(raw: string): Record<string, Value> | undefined {
  if (UNSAFE_TEXT.test(raw)) return undefined;
  const lines: Line[] = [];
  for (const line of raw.split("\n")) {
    // Only spaces indent YAML (and only spaces and tabs are blank): other white space is text.
    const text = line.replace(LEADING_SPACES, "");
    if (text === "") continue;
    lines.push({ indent: line.length - text.length, text });
  }
  if (lines.length === 0 || lines[0]?.indent !== 0) return undefined;
  let at = 0;

  const mapping = (indent: number): Record<string, Value> => {
    const result: Record<string, Value> = {};
    while (at < lines.length) {
      const line = lines[at] as Line;
      if (line.indent < indent) break;
      if (line.indent > indent) throw new Unsupported();
      const match = KEY_LINE.exec(line.text);
      const key = match?.[1];
      if (match === null || key === undefined || key === "__proto__") throw new Unsupported();
      if (NOT_A_STRING_ANY.test(key)) throw new Unsupported();
      if (Object.hasOwn(result, key)) throw new Unsupported();
      at += 1;
      const inline = match[2];
      if (inline !== undefined && trimSpaces(inline) !== "") {
        result[key] = plain(inline);
        continue;
      }
      const next = lines[at];
      if (next?.text.startsWith("-") && next.indent >= indent) {
        result[key] = sequence(next.indent);
      } else if (next && next.indent > indent) {
        result[key] = mapping(next.indent);
      } else {
        result[key] = null;
      }
    }
    return result;
  };

  const sequence = (indent: number): Value[] => {
    const items: Value[] = [];
    while (at < lines.length) {
      const line = lines[at] as Line;
      if (line.indent !== indent || !line.text.startsWith("- ")) {
        if (line.indent > indent || (line.indent === indent && line.text.startsWith("-")))
          throw new Unsupported();
        break;
      }
      items.push(plain(line.text.slice(2).replace(LEADING_SPACES, "")));
      at += 1;
    }
    return items;
  };

  try {
    const result = mapping(0);
    return at === lines.length ? result : undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}
