/**
 * CLIPS values in memory. Atoms are interned so that `===` is CLIPS `eq` and a value can key a Map
 * directly (the join hash tables rely on it):
 * - symbol: a JS string (`red`, `TRUE`, `nil`)
 * - integer: a JS number that is an integer
 * - float: a {@link ClipsFloat} (so `2.0` stays distinct from `2`)
 * - string: a {@link ClipsString} (so `"red"` stays distinct from `red`)
 * - multifield: a frozen array of atoms
 * - fact address: a {@link FactRef}
 */
export type Atom =
  | string
  | number
  | ClipsFloat
  | ClipsString
  | FactRef
  | InstanceName
  | InstanceRef;
export type Value = Atom | Multifield;
export type Multifield = readonly Atom[];

/** A CLIPS float. Interned: create with {@link float}. */
export class ClipsFloat {
  constructor(readonly value: number) {}
}

/** A CLIPS string. Interned: create with {@link str}. */
export class ClipsString {
  constructor(readonly value: string) {}
}

/** A COOL instance name, `[name]`. Interned: create with {@link instanceName}. */
export class InstanceName {
  constructor(readonly name: string) {}
}

/** A COOL instance address (`instance-address`); `deleted` once the instance is gone. */
export interface InstanceRef {
  readonly instanceName: InstanceName;
  deleted: boolean;
}

const instanceNames = new Map<string, InstanceName>();

/** The interned instance name `[name]`. */
export function instanceName(name: string): InstanceName {
  let v = instanceNames.get(name);
  if (v === undefined) {
    v = new InstanceName(name);
    instanceNames.set(name, v);
  }
  return v;
}

export function isInstanceName(v: Value): v is InstanceName {
  return v instanceof InstanceName;
}
export function isInstanceRef(v: Value): v is InstanceRef {
  return typeof v === "object" && v !== null && "instanceName" in v;
}

/** What a fact-address variable (`?f <- (…)`) holds. */
export interface FactRef {
  readonly factId: number;
  retracted: boolean;
}

/**
 * What a slot's derived default holds for the address types (CLIPS's default.c): placeholders
 * that print as CLIPS prints them. Keel has no external addresses; its placeholder is one.
 */
export const DUMMY_FACT: FactRef = { factId: 0, retracted: true };
export const DUMMY_INSTANCE: InstanceRef = { instanceName: instanceName("nil"), deleted: true };
export const NULL_POINTER: FactRef = { factId: 0, retracted: true };

const floats = new Map<number, ClipsFloat>();
const strings = new Map<string, ClipsString>();
const NEGATIVE_ZERO = new ClipsFloat(-0);

/** The interned float for `n`. */
export function float(n: number): ClipsFloat {
  // A Map does not tell -0 from 0 (SameValueZero): -0.0 has an instance of its own.
  if (n === 0 && Object.is(n, -0)) return NEGATIVE_ZERO;
  let f = floats.get(n);
  if (f === undefined) {
    f = new ClipsFloat(n);
    floats.set(n, f);
  }
  return f;
}

/** The interned string for `s`. */
export function str(s: string): ClipsString {
  let v = strings.get(s);
  if (v === undefined) {
    v = new ClipsString(s);
    strings.set(s, v);
  }
  return v;
}

/**
 * What CLIPS's void functions (printout, retract, run, facts, …) return: printed as nothing and
 * adding no field to a multifield, so it is an empty multifield of its own identity.
 */
export const VOID: Multifield = Object.freeze([]);

export const TRUE = "TRUE";
export const FALSE = "FALSE";
export const NIL = "nil";

export function bool(b: boolean): string {
  return b ? TRUE : FALSE;
}

export function isMultifield(v: Value): v is Multifield {
  return Array.isArray(v);
}
export function isInteger(v: Value): v is number {
  return typeof v === "number";
}
export function isFloat(v: Value): v is ClipsFloat {
  return v instanceof ClipsFloat;
}
export function isNumber(v: Value): boolean {
  return typeof v === "number" || v instanceof ClipsFloat;
}
export function isSymbol(v: Value): v is string {
  return typeof v === "string";
}
export function isString(v: Value): v is ClipsString {
  return v instanceof ClipsString;
}
export function isFactRef(v: Value): v is FactRef {
  return typeof v === "object" && v !== null && "factId" in v;
}

/** The JS number of an integer or float value (callers check {@link isNumber} first). */
export function numberOf(v: Value): number {
  return typeof v === "number" ? v : (v as ClipsFloat).value;
}

/** CLIPS `eq`: same type and same value (multifields compared field by field). */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return false;
}

/**
 * Formats a float the way CLIPS 6.30 prints it: C's `%.15g`, then `.0` when the text has neither
 * a point nor an exponent (`2.0`, `inf.0`). The digits are those of the double's exact value,
 * rounded half to even as glibc rounds (JavaScript's toPrecision rounds ties up). NaN prints as
 * x86 makes it from arithmetic: `-nan.0`.
 */
export function formatFloat(n: number): string {
  if (Number.isNaN(n)) return "-nan.0";
  if (!Number.isFinite(n)) return n > 0 ? "inf.0" : "-inf.0";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const text = formatG(Math.abs(n), 15);
  const signed = n < 0 ? `-${text}` : text;
  return /[.e]/.test(signed) ? signed : `${signed}.0`;
}

/** C's `%.{precision}g` of a positive finite double, from its exact decimal expansion. */
function formatG(x: number, precision: number): string {
  const { digits, exponent } = exactDigits(x);
  // x = 0.d1d2d3… × 10^(exponent + 1) = d1.d2d3… × 10^exponent
  let kept = digits.slice(0, precision);
  let exp10 = exponent;
  if (digits.length > precision) {
    const next = digits.charCodeAt(precision) - 48;
    const tail = digits.slice(precision + 1);
    const odd = (kept.charCodeAt(kept.length - 1) - 48) % 2 === 1;
    const up = next > 5 || (next === 5 && (/[1-9]/.test(tail) || odd));
    if (up) {
      const bumped = (BigInt(kept) + 1n).toString();
      if (bumped.length > kept.length) {
        exp10++;
        kept = bumped.slice(0, precision);
      } else {
        kept = bumped;
      }
    }
  }
  kept = kept.replace(/0+$/, "") || "0";
  if (exp10 < -4 || exp10 >= precision) {
    const mantissa = kept.length > 1 ? `${kept[0]}.${kept.slice(1)}` : kept;
    const sign = exp10 < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp10)).padStart(2, "0")}`;
  }
  if (exp10 < 0) return `0.${"0".repeat(-exp10 - 1)}${kept}`;
  const whole = kept.slice(0, exp10 + 1).padEnd(exp10 + 1, "0");
  const fraction = kept.slice(exp10 + 1);
  return fraction ? `${whole}.${fraction}` : whole;
}

const FLOAT_VIEW = new DataView(new ArrayBuffer(8));

/**
 * The exact decimal digits of a positive finite double (no leading or trailing zeros) and the
 * power of ten of the first digit.
 */
function exactDigits(x: number): { digits: string; exponent: number } {
  FLOAT_VIEW.setFloat64(0, x);
  const bits = FLOAT_VIEW.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | 0x10000000000000n;
  const power2 = (biased === 0 ? 1 : biased) - 1075;
  // x = mantissa × 2^power2; with a negative power, x = mantissa × 5^-power2 / 10^-power2.
  const scaled = power2 >= 0 ? mantissa << BigInt(power2) : mantissa * 5n ** BigInt(-power2);
  const scale = power2 >= 0 ? 0 : -power2;
  const all = scaled.toString();
  const digits = all.replace(/0+$/, "");
  return { digits, exponent: all.length - 1 - scale };
}

/** CLIPS prints strings between quotes without escaping what is inside. */
function quote(s: string): string {
  return `"${s}"`;
}

/**
 * The printed form of a value. `forPrintout` prints strings raw (as `printout` and `str-cat` do);
 * otherwise strings are quoted (as fact listings do). Strings inside multifields are always quoted.
 */
export function formatValue(v: Value, forPrintout = false): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  if (v instanceof ClipsFloat) return formatFloat(v.value);
  if (v instanceof ClipsString) return forPrintout ? v.value : quote(v.value);
  if (Array.isArray(v)) {
    return v === VOID ? "" : `(${v.map((x) => formatValue(x, false)).join(" ")})`;
  }
  if (v instanceof InstanceName) return `[${v.name}]`;
  if (v === DUMMY_INSTANCE) return "<Dummy Instance>";
  if (v === DUMMY_FACT) return "<Dummy Fact>";
  if (v === NULL_POINTER) return "<Pointer-C-(nil)>";
  if (isInstanceRef(v)) return `<Instance-${v.instanceName.name}>`;
  return `<Fact-${(v as FactRef).factId}>`;
}

/** Fields of a multifield joined by spaces, as they appear inside a fact listing. */
export function formatFields(fields: Multifield): string {
  return fields.map((f) => formatValue(f, false)).join(" ");
}

/** A plain-JSON view of a value for hosts and `--json` (symbols and strings both become strings). */
export function toPlain(v: Value): unknown {
  if (typeof v === "string" || typeof v === "number") return v;
  if (v instanceof ClipsFloat) return v.value;
  if (v instanceof ClipsString) return v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof InstanceName) return { instance: v.name };
  if (isInstanceRef(v)) return { instance: v.instanceName.name };
  if (v === NULL_POINTER) return null;
  return { fact: (v as FactRef).factId };
}

/** A lossless JSON encoding for snapshots: `{s}` string, `{f}` float, `{m}` multifield, `{a}` fact address. */
export type EncodedValue =
  | string
  | number
  | { s: string }
  | { f: number }
  | { m: EncodedValue[] }
  | { a: number }
  /** An instance name (an instance address is kept as its name). */
  | { i: string };

export function encodeValue(v: Value): EncodedValue {
  if (typeof v === "string" || typeof v === "number") return v;
  if (v instanceof ClipsFloat) return { f: v.value };
  if (v instanceof ClipsString) return { s: v.value };
  if (Array.isArray(v)) return { m: v.map(encodeValue) };
  if (v instanceof InstanceName) return { i: v.name };
  if (isInstanceRef(v)) return { i: v.instanceName.name };
  return { a: (v as FactRef).factId };
}

export function decodeValue(e: EncodedValue, factRef: (id: number) => FactRef): Value {
  if (typeof e === "string" || typeof e === "number") return e;
  if ("f" in e) return float(e.f);
  if ("s" in e) return str(e.s);
  if ("m" in e) return e.m.map((x) => decodeValue(x, factRef) as Atom);
  if ("i" in e) return instanceName(e.i);
  return factRef(e.a);
}

/** Converts a host JS value into a CLIPS value (strings become symbols unless wrapped with str()). */
export function fromHost(x: unknown): Value {
  if (x instanceof ClipsFloat || x instanceof ClipsString) return x;
  if (typeof x === "number") return Number.isInteger(x) ? x : float(x);
  if (typeof x === "string") return x;
  if (typeof x === "boolean") return bool(x);
  if (Array.isArray(x)) return x.map((e) => fromHost(e) as Atom);
  if (x === null || x === undefined) return NIL;
  return str(JSON.stringify(x));
}
