import { compareCodePoints, KeelError } from "../core/index.js";

/**
 * `pythonCanonicalJson(value)` is byte-identical to Python's
 * `json.dumps(value, sort_keys=True, separators=(",", ":"))` (ensure_ascii on, allow_nan on)
 * for the value Python would get from `json.loads` of the same JSON. It exists because the fact
 * content hash must match the original system's, and core's `canonicalJson` differs from
 * Python in three places:
 *
 * - numbers: Python writes a float with `repr` (`1e-05`, `1e+16`, `1.5`) and an int in full;
 *   JavaScript has one number type. Safe integers are written as Python ints (`1`, never
 *   `1.0`), bigints as ints, every other number as a Python float repr (a number beyond 2^53 is
 *   not an exact integer); NaN and ±Infinity as Python writes them (`NaN`, `Infinity`).
 * - key order: Python sorts by code point, JavaScript by UTF-16 unit; they differ when a key
 *   holds characters above U+FFFF next to characters in U+E000–U+FFFF.
 * - escapes: Python escapes everything outside `' '..'~'`, including DEL (U+007F).
 *
 * A value Python holds as an integral float (`1.0`) cannot be told apart from `1` here; it
 * hashes as Python's `1` (docs/ir.md, "Fact content hash").
 */
export function pythonCanonicalJson(value: unknown): string {
  return pythonJson(value, { sortKeys: true, ensureAscii: true });
}

/** How {@link pythonJson} writes: Python's `sort_keys` and `ensure_ascii`. */
export interface PythonJsonOptions {
  sortKeys: boolean;
  ensureAscii: boolean;
}

/**
 * Python's `json.dumps(value, separators=(",", ":"), sort_keys=…, ensure_ascii=…)` for the value
 * Python would get from `json.loads` of the same JSON (numbers and keys as described on
 * {@link pythonCanonicalJson}). With `ensureAscii` off, strings are escaped as Python's
 * `ensure_ascii=False` does (quote, backslash and control characters only), which is what
 * `JSON.stringify` does too.
 */
export function pythonJson(value: unknown, options: PythonJsonOptions): string {
  const parts: string[] = [];
  write(value, parts, new Set(), options);
  return parts.join("");
}

function write(value: unknown, out: string[], seen: Set<object>, options: PythonJsonOptions): void {
  switch (typeof value) {
    case "string":
      out.push(options.ensureAscii ? quote(value) : JSON.stringify(value));
      return;
    case "number":
      out.push(formatNumber(value));
      return;
    case "bigint":
      out.push(value.toString());
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      if (value === null) {
        out.push("null");
        return;
      }
      if (seen.has(value)) throw unsupported("a circular reference");
      seen.add(value);
      if (Array.isArray(value)) writeArray(value, out, seen, options);
      else writeObject(value, out, seen, options);
      seen.delete(value);
      return;
    default:
      throw unsupported(`a ${typeof value}`);
  }
}

function writeArray(
  items: readonly unknown[],
  out: string[],
  seen: Set<object>,
  options: PythonJsonOptions,
): void {
  out.push("[");
  items.forEach((item, index) => {
    if (index > 0) out.push(",");
    write(item === undefined ? null : item, out, seen, options);
  });
  out.push("]");
}

function writeObject(
  value: object,
  out: string[],
  seen: Set<object>,
  options: PythonJsonOptions,
): void {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw unsupported(`an instance of ${value.constructor?.name ?? "a class"}`);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined);
  if (options.sortKeys) keys.sort(compareCodePoints);
  out.push("{");
  keys.forEach((key, index) => {
    if (index > 0) out.push(",");
    out.push(options.ensureAscii ? quote(key) : JSON.stringify(key), ":");
    write(record[key], out, seen, options);
  });
  out.push("}");
}

const SHORT_ESCAPES: Record<number, string> = {
  34: '\\"',
  92: "\\\\",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  8: "\\b",
  12: "\\f",
};

function quote(text: string): string {
  let result = '"';
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const short = SHORT_ESCAPES[unit];
    if (short === undefined && unit >= 0x20 && unit <= 0x7e) continue;
    result += text.slice(start, index) + (short ?? `\\u${unit.toString(16).padStart(4, "0")}`);
    start = index + 1;
  }
  return `${result + text.slice(start)}"`;
}

/**
 * True when Python's json writes `value` differently from `JSON.stringify`: a float in
 * exponent form (below 1e-4 or from 1e16 on; JavaScript switches at 1e-6 and 1e21), a
 * non-integer beyond 2^53, or a non-finite number.
 */
export function differsFromJavaScript(value: number): boolean {
  if (Number.isSafeInteger(value)) return false;
  const magnitude = Math.abs(value);
  return !(magnitude >= 1e-4 && magnitude < 2 ** 53) && value !== 0;
}

/** A number as Python's json writes it: ints in full, floats as `repr(float)`. */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  // Beyond 2^53 a number is not an exact integer: treat it as the float it is (bigint for ints).
  if (Number.isSafeInteger(value)) return String(value);
  return pythonFloatRepr(value);
}

/**
 * Python's `repr(float)`: the shortest round-tripping digits (which JavaScript also finds),
 * positional when the decimal exponent is in [-4, 16), scientific otherwise with a sign and at
 * least two exponent digits (`1e-05`, `1.5e+300`), and `.0` on integral positional values.
 */
export function pythonFloatRepr(value: number): string {
  const [mantissa = "0", exponentText = "0"] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const magnitude = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? "-" : "+"}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1) || "0";
  return `${sign}${whole}.${fraction}`;
}

function unsupported(what: string): KeelError {
  return new KeelError("INVALID_ARGUMENT", `A fact cannot contain ${what}.`, {
    hint: "Facts are JSON data: strings, numbers, booleans, null, arrays and plain objects.",
  });
}
