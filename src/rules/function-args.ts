/** Argument access and shared helpers of the built-in functions. */
import { rulesRuntimeError } from "./errors.js";
import {
  type Atom,
  bool,
  FALSE,
  float,
  formatValue,
  isInstanceName,
  isInstanceRef,
  isInteger,
  isMultifield,
  isNumber,
  isString,
  isSymbol,
  type Multifield,
  numberOf,
  TRUE,
  type Value,
} from "./values.js";

/** A function callable from rules: receives evaluated arguments, returns a value. */
export type RuleFunction = (args: Value[]) => Value;

/** Arity bounds for argument-count checks. */
export interface Builtin {
  readonly fn: RuleFunction;
  readonly min: number;
  readonly max: number;
}

export function typeError(name: string, index: number, expected: string): Error {
  return rulesRuntimeError(
    `function ${name} expected argument #${index} to be of type ${expected}`,
    {
      clips: `[ARGACCES5] Function ${name} expected argument #${index} to be of type ${expected}`,
    },
  );
}

export function num(name: string, args: Value[], i: number): number {
  const v = args[i] as Value;
  if (!isNumber(v)) throw typeError(name, i + 1, "integer or float");
  return numberOf(v);
}

export function int(name: string, args: Value[], i: number): number {
  const v = args[i] as Value;
  if (!isNumber(v)) throw typeError(name, i + 1, "integer");
  return Math.trunc(numberOf(v));
}

/** An INTEGER argument, a float refused (CLIPS's "i" restriction, e.g. evenp's). */
export function strictInt(name: string, args: Value[], i: number): number {
  const v = args[i] as Value;
  if (!isInteger(v)) throw typeError(name, i + 1, "integer");
  return numberOf(v);
}

export function lexeme(name: string, args: Value[], i: number): string {
  const v = args[i] as Value;
  if (isSymbol(v)) return v;
  if (isString(v)) return v.value;
  if (isInstanceName(v)) return v.name;
  throw typeError(name, i + 1, "symbol, string, or instance name");
}

export function multi(name: string, args: Value[], i: number): Multifield {
  const v = args[i] as Value;
  if (!isMultifield(v)) throw typeError(name, i + 1, "multifield");
  return v;
}

export function allIntegers(args: Value[]): boolean {
  for (const a of args) if (!isInteger(a)) return false;
  return true;
}

/** + - * with CLIPS's rule: integer if every argument is an integer, else float. */
export function arith(name: string, op: (a: number, b: number) => number): RuleFunction {
  return (args) => {
    let acc = num(name, args, 0);
    for (let i = 1; i < args.length; i++) acc = op(acc, num(name, args, i));
    return allIntegers(args) ? acc : float(acc);
  };
}

/** CLIPS's `<>`: TRUE when the first number differs from every other (each argument a number). */
export function notEqual(name: string): RuleFunction {
  return (args) => {
    const first = num(name, args, 0);
    let differs = true;
    for (let j = 1; j < args.length; j++) if (num(name, args, j) === first) differs = false;
    return differs ? TRUE : FALSE;
  };
}

export function compare(name: string, ok: (a: number, b: number) => boolean): RuleFunction {
  return (args) => {
    for (let i = 0; i + 1 < args.length; i++) {
      if (!ok(num(name, args, i), num(name, args, i + 1))) {
        for (let j = i + 2; j < args.length; j++) num(name, args, j);
        return FALSE;
      }
    }
    if (args.length === 1) num(name, args, 0);
    return TRUE;
  };
}

export function predicate(test: (v: Value) => boolean): Builtin {
  return { fn: (args) => bool(test(args[0] as Value)), min: 1, max: 1 };
}

export function extremum(name: string, pick: (a: number, b: number) => boolean): RuleFunction {
  return (args) => {
    let best = args[0] as Value;
    num(name, args, 0);
    for (let i = 1; i < args.length; i++) {
      const v = args[i] as Value;
      if (pick(num(name, args, i), numberOf(best))) best = v;
    }
    return best;
  };
}

/** str-cat and sym-cat: every argument must be a single field (a multifield is an error in CLIPS). */
export function catText(name: string, args: Value[]): string {
  let text = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Value;
    if (isMultifield(a) || isInstanceRef(a)) {
      throw typeError(name, i + 1, "string, instance name, symbol, float, or integer");
    }
    text += isInstanceName(a) ? a.name : formatValue(a, true);
  }
  return text;
}

/** The length of a lexeme in characters (CLIPS counts UTF-8 characters, not bytes). */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** CLIPS's upcase/lowcase use C's toupper/tolower: ASCII letters only. */
export function asciiUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function flatten(args: Value[]): Atom[] {
  const out: Atom[] = [];
  for (const a of args) {
    if (isMultifield(a)) out.push(...a);
    else out.push(a);
  }
  return out;
}

export const B = (fn: RuleFunction, min: number, max = Number.POSITIVE_INFINITY): Builtin => ({
  fn,
  min,
  max,
});
