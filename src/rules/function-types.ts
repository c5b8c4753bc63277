/**
 * The argument and return types CLIPS 6.30 declares for its system functions, as its static
 * checks use them: a call's constant arguments and the return types of its nested calls are
 * checked against its argument types when it is parsed ([ARGACCES5], exprnpsr.c), and a rule's
 * variables against them once its patterns are known ([RULECSTR2] on the left-hand side,
 * [RULECSTR3] on the right).
 *
 * Types are the primitive type names, `MULTIFIELD` for a multifield value and `VOID` for no
 * value. Functions not listed accept and return anything.
 *
 * @example
 * // (defrule r => (bind ?a (- 3 (numberp 3)))) fails when parsed with
 * // "[ARGACCES5] Function - expected argument #2 to be of type integer or float"
 */

/** What one argument must be, and how CLIPS's message names it. */
export interface ArgKind {
  readonly types: ReadonlySet<string>;
  readonly name: string;
}

const kind = (name: string, ...types: string[]): ArgKind => ({ types: new Set(types), name });

const NUMBER = kind("integer or float", "INTEGER", "FLOAT");
const INTEGER = kind("integer", "INTEGER");
const MULTIFIELD = kind("multifield", "MULTIFIELD");
const TEXT = kind("symbol, string, or instance name", "SYMBOL", "STRING", "INSTANCE-NAME");
const LEXEME = kind("symbol or string", "SYMBOL", "STRING");
const STRING = kind("string", "STRING");

/** Return types. */
const R = {
  boolean: ["SYMBOL"],
  number: ["INTEGER", "FLOAT"],
  integer: ["INTEGER"],
  float: ["FLOAT"],
  symbol: ["SYMBOL"],
  string: ["STRING"],
  lexeme: ["SYMBOL", "STRING"],
  text: ["SYMBOL", "STRING", "INSTANCE-NAME"],
  multifield: ["MULTIFIELD"],
  void: ["VOID"],
} as const;

interface Signature {
  /** Null: any value. */
  readonly returns: readonly string[] | null;
  /** The leading arguments' kinds (null: any value). */
  readonly args: readonly (ArgKind | null)[];
  /** The kind of every argument after them (null: any value). */
  readonly rest: ArgKind | null;
}

const sig = (
  returns: readonly string[] | null,
  rest: ArgKind | null,
  ...args: (ArgKind | null)[]
): Signature => ({ returns, args, rest });

const SIGNATURES = new Map<string, Signature>();
const define = (names: string, s: Signature) => {
  for (const n of names.split(" ")) SIGNATURES.set(n, s);
};

define("+ - * / min max abs mod", sig(R.number, NUMBER));
define("div integer round", sig(R.integer, NUMBER));
define("float ** sqrt exp log log10 deg-rad rad-deg deg-grad grad-deg", sig(R.float, NUMBER));
define(
  "cos sin tan sec csc cot acos asin atan asec acsc acot cosh sinh tanh sech csch coth acosh asinh atanh asech acsch acoth",
  sig(R.float, NUMBER),
);
define("pi", sig(R.float, null));
define("= <> != > < >= <=", sig(R.boolean, NUMBER));
define(
  "eq neq and or not symbolp wordp stringp lexemep numberp integerp floatp multifieldp",
  sig(R.boolean, null),
);
define("oddp evenp", sig(R.boolean, INTEGER));
define("member$ member", sig(null, null, null, MULTIFIELD));
define("nth$ nth", sig(null, null, INTEGER, MULTIFIELD));
define("subsetp subset", sig(R.boolean, null, MULTIFIELD, MULTIFIELD));
define("first$ rest$", sig(R.multifield, null, MULTIFIELD));
define("subseq$ delete$", sig(R.multifield, null, MULTIFIELD, INTEGER, INTEGER));
define("replace$", sig(R.multifield, null, MULTIFIELD, INTEGER, INTEGER));
define("insert$", sig(R.multifield, null, MULTIFIELD, INTEGER));
define("delete-member$ replace-member$", sig(R.multifield, null, MULTIFIELD));
define("explode$ str-explode", sig(R.multifield, null, STRING));
define("implode$ str-implode", sig(R.string, null, MULTIFIELD));
define("create$", sig(R.multifield, null));
define("str-cat sym-cat", sig(R.lexeme, null));
define("str-length", sig(R.integer, null, TEXT));
define("str-compare", sig(R.integer, null, TEXT, TEXT, INTEGER));
define("upcase lowcase", sig(R.text, null, TEXT));
define("sub-string", sig(R.string, null, INTEGER, INTEGER, TEXT));
define("str-index string-to-field", sig(null, null, TEXT, TEXT));
define("eval", sig(null, null, LEXEME));
define("build", sig(R.boolean, null, LEXEME));
define("gensym gensym*", sig(R.symbol, null));
define("printout", sig(R.void, null));

/** What argument #`index` (from 0) of `fn` must be, or null for anything. */
export function argKind(fn: string, index: number): ArgKind | null {
  const s = SIGNATURES.get(fn);
  if (s === undefined) return null;
  return index < s.args.length ? (s.args[index] ?? null) : s.rest;
}

/** The types `fn` may return, or null for anything (or an unknown function). */
export function returnTypes(fn: string): readonly string[] | null {
  return SIGNATURES.get(fn)?.returns ?? null;
}
