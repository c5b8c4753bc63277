/**
 * CLIPS 6.30's math, string, multifield and type functions beyond the core set in functions.ts
 * (Basic Programming Guide, section 12). Each follows the C implementation's answers: the trig and
 * extended-math functions return floats, `round` is ceil(x - 0.5), `explode$` reads its string
 * with the CLIPS scanner.
 */
import { rulesRuntimeError } from "./errors.js";
import {
  B,
  type Builtin,
  charLength,
  flatten,
  lexeme,
  multi,
  num,
  strictInt,
  typeError,
} from "./function-args.js";
import { readForms } from "./reader.js";
import {
  type Atom,
  bool,
  FALSE,
  float,
  formatValue,
  isFactRef,
  isFloat,
  isInteger,
  isMultifield,
  isString,
  isSymbol,
  type Multifield,
  str,
  type Value,
  valuesEqual,
} from "./values.js";

/** A float-valued function of one number, with CLIPS's domain error for arguments it refuses. */
function math1(
  name: string,
  f: (x: number) => number,
  ok?: (x: number) => boolean,
  singular?: (x: number) => boolean,
  overflowAtZero = false,
): Builtin {
  return B(
    (args) => {
      const x = num(name, args, 0);
      if (ok && !ok(x)) {
        throw rulesRuntimeError(`domain error for ${name} function`, {
          clips: `[EMATHFUN1] Domain error for ${name} function.`,
        });
      }
      if (overflowAtZero && x === 0) {
        throw rulesRuntimeError(`argument overflow for ${name} function`, {
          clips: `[EMATHFUN2] Argument overflow for ${name} function.`,
        });
      }
      if (singular?.(x)) {
        throw rulesRuntimeError(`singularity at asymptote in ${name} function`, {
          clips: `[EMATHFUN3] Singularity at asymptote in ${name} function.`,
        });
      }
      return float(f(x));
    },
    1,
    1,
  );
}

/** CLIPS's test for a trigonometric singularity (emathfun.c's SMALLEST_ALLOWED_NUMBER). */
const nearZero = (v: number): boolean => v < 1e-15 && v > -1e-15;

const trig: [string, Builtin][] = [
  ["sin", math1("sin", Math.sin)],
  ["cos", math1("cos", Math.cos)],
  ["tan", math1("tan", Math.tan, undefined, (x) => nearZero(Math.cos(x)))],
  [
    "sec",
    math1(
      "sec",
      (x) => 1 / Math.cos(x),
      undefined,
      (x) => nearZero(Math.cos(x)),
    ),
  ],
  [
    "csc",
    math1(
      "csc",
      (x) => 1 / Math.sin(x),
      undefined,
      (x) => nearZero(Math.sin(x)),
    ),
  ],
  [
    "cot",
    math1(
      "cot",
      (x) => 1 / Math.tan(x),
      undefined,
      (x) => nearZero(Math.sin(x)),
    ),
  ],
  ["sinh", math1("sinh", Math.sinh)],
  ["cosh", math1("cosh", Math.cosh)],
  ["tanh", math1("tanh", Math.tanh)],
  ["sech", math1("sech", (x) => 1 / Math.cosh(x))],
  [
    "csch",
    math1(
      "csch",
      (x) => 1 / Math.sinh(x),
      undefined,
      (x) => x === 0,
    ),
  ],
  [
    "coth",
    math1(
      "coth",
      (x) => 1 / Math.tanh(x),
      undefined,
      (x) => x === 0,
    ),
  ],
  ["asin", math1("asin", Math.asin, (x) => x >= -1 && x <= 1)],
  ["acos", math1("acos", Math.acos, (x) => x >= -1 && x <= 1)],
  ["atan", math1("atan", Math.atan)],
  [
    "asec",
    math1(
      "asec",
      (x) => Math.acos(1 / x),
      (x) => x <= -1 || x >= 1,
    ),
  ],
  [
    "acsc",
    math1(
      "acsc",
      (x) => Math.asin(1 / x),
      (x) => x <= -1 || x >= 1,
    ),
  ],
  ["acot", math1("acot", (x) => (x === 0 ? Math.PI / 2 : Math.atan(1 / x)))],
  ["asinh", math1("asinh", Math.asinh)],
  ["acosh", math1("acosh", Math.acosh, (x) => x >= 1)],
  ["atanh", math1("atanh", Math.atanh, (x) => x > -1 && x < 1)],
  [
    "asech",
    math1(
      "asech",
      (x) => Math.acosh(1 / x),
      (x) => x > 0 && x <= 1,
    ),
  ],
  [
    "acsch",
    math1(
      "acsch",
      (x) => Math.asinh(1 / x),
      (x) => x !== 0,
    ),
  ],
  [
    "acoth",
    math1(
      "acoth",
      (x) => Math.atanh(1 / x),
      (x) => x < -1 || x > 1,
    ),
  ],
];

const math: [string, Builtin][] = [
  ...trig,
  ["sqrt", math1("sqrt", Math.sqrt, (x) => x >= 0)],
  ["exp", math1("exp", Math.exp)],
  ["log", math1("log", Math.log, (x) => x >= 0, undefined, true)],
  ["log10", math1("log10", Math.log10, (x) => x >= 0, undefined, true)],
  ["deg-rad", math1("deg-rad", (x) => (x * Math.PI) / 180)],
  ["rad-deg", math1("rad-deg", (x) => (x * 180) / Math.PI)],
  ["deg-grad", math1("deg-grad", (x) => x / 0.9)],
  ["grad-deg", math1("grad-deg", (x) => x * 0.9)],
  ["pi", B(() => float(Math.PI), 0, 0)],
  [
    "**",
    B(
      (args) => {
        const x = num("**", args, 0);
        const y = num("**", args, 1);
        // CLIPS's domain: no 0 to a power <= 0, no negative base to a fractional power.
        if ((x === 0 && y <= 0) || (x < 0 && !Number.isInteger(y))) {
          throw rulesRuntimeError("domain error for ** function", {
            clips: "[EMATHFUN1] Domain error for ** function.",
          });
        }
        return float(x ** y);
      },
      2,
      2,
    ),
  ],
  [
    "round",
    B(
      (args) => {
        const x = num("round", args, 0);
        // CLIPS 6.30 rounds with ceil(x - 0.5): 2.5 is 2, -2.5 is -3.
        return Math.ceil(x - 0.5);
      },
      1,
      1,
    ),
  ],
];

/** The symbol naming a value's type, as `(type ?x)` answers. */
function typeName(v: Value): string {
  if (isInteger(v)) return "INTEGER";
  if (isFloat(v)) return "FLOAT";
  if (isString(v)) return "STRING";
  if (isMultifield(v)) return "MULTIFIELD";
  if (isFactRef(v)) return "FACT-ADDRESS";
  return "SYMBOL";
}

/**
 * The fields of a text read with the CLIPS scanner (explode$, string-to-field): a parenthesis
 * is a string of its own, anything else a token as the reader classifies it.
 */
export function scanFields(text: string): Atom[] {
  const out: Atom[] = [];
  const token = /\s*("(?:[^"\\]|\\.)*"?|[()]|[^\s()"]+)/y;
  for (;;) {
    const m = token.exec(text);
    if (!m || m[1] === undefined) break;
    const t = m[1];
    if (t === "(" || t === ")") out.push(str(t));
    else {
      try {
        const node = readForms(t)[0];
        out.push(node?.type === "atom" ? node.value : str(t));
      } catch {
        out.push(str(t));
      }
    }
  }
  return out;
}

function position(name: string, args: Value[], i: number, m: Multifield, extra = 0): number {
  const p = strictInt(name, args, i);
  // CLIPS 6.30 refuses only a position below 1; one past the end or beyond appends.
  if (p < 1) {
    throw rulesRuntimeError(
      `multifield index ${p} out of range 1..${m.length + extra} in ${name}`,
      {
        clips: `[MULTIFUN1] Multifield index ${p} out of range 1..${m.length + extra} in function ${name}.`,
      },
    );
  }
  return Math.min(p, m.length + extra);
}

/** A `begin..end` pair of positions, refused as CLIPS's multifun.c refuses it. */
function span(name: string, args: Value[], i: number, m: Multifield): [number, number] {
  const a = strictInt(name, args, i);
  const b = strictInt(name, args, i + 1);
  if (a > b || a < 1 || b > m.length) {
    const what = a === b ? `index ${a}` : `index range ${a}..${b}`;
    throw rulesRuntimeError(`multifield ${what} out of range 1..${m.length} in ${name}`, {
      clips: `[MULTIFUN1] Multifield ${what} out of range 1..${m.length} in function ${name}.`,
    });
  }
  return [a, b];
}

/** CLIPS's older multifield functions take the index first and one index: `mv-delete 2 $?m`. */
function oneIndex(name: string, args: Value[], m: Multifield): number {
  const i = strictInt(name, args, 0);
  if (i < 1 || i > m.length) {
    throw rulesRuntimeError(`multifield index ${i} out of range 1..${m.length} in ${name}`, {
      clips: `[MULTIFUN1] Multifield index ${i} out of range 1..${m.length} in function ${name}.`,
    });
  }
  return i;
}

const multifield: [string, Builtin][] = [
  [
    "mv-delete",
    B(
      (args) => {
        strictInt("mv-delete", args, 0);
        const m = multi("mv-delete", args, 1);
        const i = oneIndex("mv-delete", args, m);
        return [...m.slice(0, i - 1), ...m.slice(i)];
      },
      2,
      2,
    ),
  ],
  [
    "mv-subseq",
    B(
      (args) => {
        // As subseq$, the indices clipped to the multifield.
        const start = Math.max(1, strictInt("mv-subseq", args, 0));
        const last = strictInt("mv-subseq", args, 1);
        const m = multi("mv-subseq", args, 2);
        const end = Math.min(m.length, last);
        return end < start ? [] : m.slice(start - 1, end);
      },
      3,
      3,
    ),
  ],
  [
    "mv-replace",
    B(
      (args) => {
        strictInt("mv-replace", args, 0);
        const m = multi("mv-replace", args, 1);
        const i = oneIndex("mv-replace", args, m);
        return [...m.slice(0, i - 1), ...flatten(args.slice(2)), ...m.slice(i)];
      },
      3,
      3,
    ),
  ],
  [
    "delete$",
    B(
      (args) => {
        const m = multi("delete$", args, 0);
        const [a, b] = span("delete$", args, 1, m);
        return [...m.slice(0, a - 1), ...m.slice(b)];
      },
      3,
      3,
    ),
  ],
  [
    "insert$",
    B((args) => {
      const m = multi("insert$", args, 0);
      const at = position("insert$", args, 1, m, 1);
      return [...m.slice(0, at - 1), ...flatten(args.slice(2)), ...m.slice(at - 1)];
    }, 3),
  ],
  [
    "replace$",
    B((args) => {
      const m = multi("replace$", args, 0);
      const [a, b] = span("replace$", args, 1, m);
      return [...m.slice(0, a - 1), ...flatten(args.slice(3)), ...m.slice(b)];
    }, 4),
  ],
  [
    "explode$",
    B(
      (args) => {
        const s = args[0] as Value;
        if (!isString(s)) throw typeError("explode$", 1, "string");
        return scanFields(s.value);
      },
      1,
      1,
    ),
  ],
  // CLIPS 6.30 still answers to `subset`, subsetp's older name (its test suite uses it).
  ...(["subsetp", "subset"] as const).map((name): [string, Builtin] => [
    name,
    B(
      (args) => {
        const a = multi(name, args, 0);
        const b = multi(name, args, 1);
        return bool(a.every((x) => b.includes(x)));
      },
      2,
      2,
    ),
  ]),
  [
    "delete-member$",
    B((args) => {
      const m = multi("delete-member$", args, 0);
      const drop = args.slice(1);
      return m.filter((x) => !drop.some((d) => valuesEqual(d, x)));
    }, 2),
  ],
  [
    "replace-member$",
    B((args) => {
      const m = multi("replace-member$", args, 0);
      const by = args[1] as Value;
      const olds = args.slice(2);
      const out: Atom[] = [];
      for (const x of m) {
        if (olds.some((o) => valuesEqual(o, x))) {
          if (isMultifield(by)) out.push(...by);
          else out.push(by);
        } else out.push(x);
      }
      return out;
    }, 3),
  ],
];

const text: [string, Builtin][] = [
  [
    "string-to-field",
    B(
      (args) => {
        const fields = scanFields(lexeme("string-to-field", args, 0));
        return fields[0] ?? "EOF";
      },
      1,
      1,
    ),
  ],
  ["str-explode", B((args) => scanFields(lexeme("str-explode", args, 0)), 1, 1)],
  [
    "str-implode",
    B(
      (args) =>
        str(
          multi("str-implode", args, 0)
            .map((a) => formatValue(a))
            .join(" "),
        ),
      1,
      1,
    ),
  ],
  ["mv-append", B((args) => flatten(args), 0)],
  ["type", B((args) => typeName(args[0] as Value), 1, 1)],
  [
    "length",
    B(
      (args) => {
        const v = args[0] as Value;
        if (isMultifield(v)) return v.length;
        if (isSymbol(v)) return charLength(v);
        if (isString(v)) return charLength(v.value);
        throw typeError("length", 1, "multifield, symbol, or string");
      },
      1,
      1,
    ),
  ],
  ["pointerp", B(() => FALSE, 1, 1)],
];

/** The extra built-ins, merged into BUILTINS. */
export const EXTRA_BUILTINS: [string, Builtin][] = [...math, ...multifield, ...text];
