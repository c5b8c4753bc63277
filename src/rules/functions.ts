import { SLOT_FUNCTION_ARITIES } from "./cool-slot-functions.js";
import { rulesRuntimeError } from "./errors.js";
import {
  allIntegers,
  arith,
  asciiLower,
  asciiUpper,
  B,
  type Builtin,
  catText,
  charLength,
  compare,
  extremum,
  flatten,
  int,
  lexeme,
  multi,
  notEqual,
  num,
  predicate,
  type RuleFunction,
  strictInt,
  typeError,
} from "./function-args.js";
import { EXTRA_BUILTINS } from "./functions-extra.js";
import { MODULE_OF_FUNCTIONS } from "./introspect.js";
import { TEMPLATE_FUNCTIONS } from "./template-functions.js";
import {
  type Atom,
  bool,
  FALSE,
  float,
  formatValue,
  instanceName,
  isFloat,
  isInstanceName,
  isInteger,
  isMultifield,
  isNumber,
  isString,
  isSymbol,
  NIL,
  numberOf,
  str,
  TRUE,
  type Value,
  valuesEqual,
} from "./values.js";

export type { RuleFunction };

/** The built-in functions (the commands that need the engine live in the evaluator). */
export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ...EXTRA_BUILTINS,
  [
    "+",
    B(
      arith("+", (a, b) => a + b),
      2,
    ),
  ],
  [
    "-",
    B(
      arith("-", (a, b) => a - b),
      2,
    ),
  ],
  [
    "*",
    B(
      arith("*", (a, b) => a * b),
      2,
    ),
  ],
  [
    "/",
    B((args) => {
      let acc = num("/", args, 0);
      for (let i = 1; i < args.length; i++) {
        const d = num("/", args, i);
        if (d === 0)
          throw rulesRuntimeError("division by zero in function /", {
            clips: "[PRNTUTIL7] Attempt to divide by zero in / function.",
          });
        acc /= d;
      }
      return float(acc);
    }, 2),
  ],
  [
    "div",
    B((args) => {
      let acc = int("div", args, 0);
      for (let i = 1; i < args.length; i++) {
        const d = int("div", args, i);
        if (d === 0)
          throw rulesRuntimeError("division by zero in function div", {
            clips: "[PRNTUTIL7] Attempt to divide by zero in div function.",
          });
        acc = Math.trunc(acc / d);
      }
      return acc;
    }, 2),
  ],
  [
    "mod",
    B(
      (args) => {
        const a = num("mod", args, 0);
        const b = num("mod", args, 1);
        if (b === 0)
          throw rulesRuntimeError("division by zero in function mod", {
            clips: "[PRNTUTIL7] Attempt to divide by zero in mod function.",
          });
        if (allIntegers(args)) return a % b;
        return float(a - Math.trunc(a / b) * b);
      },
      2,
      2,
    ),
  ],
  [
    "abs",
    B(
      (args) => {
        const v = args[0] as Value;
        const n = Math.abs(num("abs", args, 0));
        return isInteger(v) ? n : float(n);
      },
      1,
      1,
    ),
  ],
  [
    "min",
    B(
      extremum("min", (a, b) => a < b),
      2,
    ),
  ],
  [
    "max",
    B(
      extremum("max", (a, b) => a > b),
      2,
    ),
  ],
  // A constant of another type is refused when the call is read ("integer or float"); a value
  // only known at run time is checked against the function's own type, as CLIPS words it.
  ["integer", B((args) => int("integer", args, 0), 1, 1)],
  [
    "float",
    B(
      (args) => {
        if (!isNumber(args[0] as Value)) throw typeError("float", 1, "float");
        return float(numberOf(args[0] as Value));
      },
      1,
      1,
    ),
  ],
  [
    "=",
    B(
      compare("=", (a, b) => a === b),
      2,
    ),
  ],
  ["<>", B(notEqual("<>"), 2)],
  // CLIPS 6.30 also knows <> as !=.
  ["!=", B(notEqual("!="), 2)],
  [
    ">",
    B(
      compare(">", (a, b) => a > b),
      2,
    ),
  ],
  [
    ">=",
    B(
      compare(">=", (a, b) => a >= b),
      2,
    ),
  ],
  [
    "<",
    B(
      compare("<", (a, b) => a < b),
      2,
    ),
  ],
  [
    "<=",
    B(
      compare("<=", (a, b) => a <= b),
      2,
    ),
  ],
  [
    "eq",
    B((args) => {
      const first = args[0] as Value;
      for (let i = 1; i < args.length; i++) if (!valuesEqual(first, args[i] as Value)) return FALSE;
      return TRUE;
    }, 2),
  ],
  [
    "neq",
    B((args) => {
      const first = args[0] as Value;
      for (let i = 1; i < args.length; i++) if (valuesEqual(first, args[i] as Value)) return FALSE;
      return TRUE;
    }, 2),
  ],
  ["not", B((args) => bool(args[0] === FALSE), 1, 1)],
  ["numberp", predicate(isNumber)],
  ["integerp", predicate(isInteger)],
  ["floatp", predicate(isFloat)],
  ["stringp", predicate(isString)],
  ["symbolp", predicate(isSymbol)],
  // CLIPS 6.30 still knows wordp, the old name of symbolp.
  ["wordp", predicate(isSymbol)],
  ["lexemep", predicate((v) => isSymbol(v) || isString(v))],
  ["multifieldp", predicate(isMultifield)],
  ["evenp", B((args) => bool(strictInt("evenp", args, 0) % 2 === 0), 1, 1)],
  ["oddp", B((args) => bool(Math.abs(strictInt("oddp", args, 0) % 2) === 1), 1, 1)],
  ["str-cat", B((args) => str(catText("str-cat", args)), 1)],
  ["sym-cat", B((args) => catText("sym-cat", args), 1)],
  ["str-length", B((args) => charLength(lexeme("str-length", args, 0)), 1, 1)],
  [
    "str-index",
    B(
      (args) => {
        const needle = lexeme("str-index", args, 0);
        const haystack = lexeme("str-index", args, 1);
        // CLIPS finds "" nowhere inside and answers one past the end.
        if (needle === "") return charLength(haystack) + 1;
        const i = haystack.indexOf(needle);
        return i < 0 ? FALSE : charLength(haystack.slice(0, i)) + 1;
      },
      2,
      2,
    ),
  ],
  [
    "sub-string",
    B(
      (args) => {
        // CLIPS checks the positions (integers, a float refused) before the text.
        const first = strictInt("sub-string", args, 0);
        const last = strictInt("sub-string", args, 1);
        const s = lexeme("sub-string", args, 2);
        const start = Math.max(1, first);
        const end = Math.min(s.length, last);
        return str(end < start ? "" : s.slice(start - 1, end));
      },
      3,
      3,
    ),
  ],
  ["upcase", B((args) => recase("upcase", args[0] as Value, asciiUpper), 1, 1)],
  ["lowcase", B((args) => recase("lowcase", args[0] as Value, asciiLower), 1, 1)],
  [
    "str-compare",
    B(
      (args) => {
        let a = lexeme("str-compare", args, 0);
        let b = lexeme("str-compare", args, 1);
        // The optional third argument compares only that many characters (C's strncmp).
        if (args.length > 2) {
          const n = Math.max(0, strictInt("str-compare", args, 2));
          a = a.slice(0, n);
          b = b.slice(0, n);
        }
        return a < b ? -1 : a > b ? 1 : 0;
      },
      2,
      3,
    ),
  ],
  ["create$", B((args) => flatten(args), 0)],
  [
    "length$",
    B(
      (args) => {
        const v = args[0] as Value;
        if (isMultifield(v)) return v.length;
        // CLIPS 6.30 also measures a symbol or string, in characters.
        if (isSymbol(v)) return charLength(v);
        if (isString(v)) return charLength(v.value);
        throw typeError("length$", 1, "multifield, symbol, or string");
      },
      1,
      1,
    ),
  ],
  [
    "nth$",
    B(
      (args) => {
        const i = strictInt("nth$", args, 0);
        const m = multi("nth$", args, 1);
        // CLIPS 6.30 answers nil for an index outside the multifield.
        return i < 1 || i > m.length ? NIL : (m[i - 1] as Atom);
      },
      2,
      2,
    ),
  ],
  [
    "nth",
    B(
      (args) => {
        const i = int("nth", args, 0);
        const m = multi("nth", args, 1);
        // CLIPS 6.30 answers nil for an index outside the multifield.
        return i < 1 || i > m.length ? NIL : (m[i - 1] as Atom);
      },
      2,
      2,
    ),
  ],
  [
    "member$",
    B(
      (args) => {
        const needle = args[0] as Value;
        const m = multi("member$", args, 1);
        if (isMultifield(needle)) {
          for (let i = 0; i + needle.length <= m.length; i++) {
            // An empty needle is found at once: CLIPS answers (1 0).
            if (needle.every((x, j) => m[i + j] === x)) return [i + 1, i + needle.length];
          }
          return FALSE;
        }
        const i = m.indexOf(needle);
        return i < 0 ? FALSE : i + 1;
      },
      2,
      2,
    ),
  ],
  [
    "member",
    B(
      (args) => {
        const needle = args[0] as Value;
        const m = multi("member", args, 1);
        if (isMultifield(needle)) {
          for (let i = 0; i + needle.length <= m.length; i++) {
            // An empty needle is found at once: CLIPS answers (1 0).
            if (needle.every((x, j) => m[i + j] === x)) return [i + 1, i + needle.length];
          }
          return FALSE;
        }
        const i = m.indexOf(needle);
        return i < 0 ? FALSE : i + 1;
      },
      2,
      2,
    ),
  ],
  ["first$", B((args) => multi("first$", args, 0).slice(0, 1), 1, 1)],
  ["rest$", B((args) => multi("rest$", args, 0).slice(1), 1, 1)],
  [
    "subseq$",
    B(
      (args) => {
        const m = multi("subseq$", args, 0);
        const start = Math.max(1, strictInt("subseq$", args, 1));
        const end = Math.min(m.length, strictInt("subseq$", args, 2));
        return end < start ? [] : m.slice(start - 1, end);
      },
      3,
      3,
    ),
  ],
  [
    "implode$",
    B(
      (args) =>
        str(
          multi("implode$", args, 0)
            .map((a) => formatValue(a))
            .join(" "),
        ),
      1,
      1,
    ),
  ],
]);

function recase(name: string, v: Value, f: (s: string) => string): Value {
  if (isSymbol(v)) return f(v);
  if (isString(v)) return str(f(v.value));
  if (isInstanceName(v)) return instanceName(f(v.name));
  throw typeError(name, 1, "symbol, string, or instance name");
}

/** Argument counts of the special forms the evaluator compiles itself. */
const ANY = Number.POSITIVE_INFINITY;
const SPECIAL_ARITY: ReadonlyMap<string, { min: number; max: number }> = new Map([
  ["and", { min: 2, max: ANY }],
  ["or", { min: 2, max: ANY }],
  // The engine commands, as CLIPS 6.30 declares them (checked when the call is parsed).
  ...(
    [
      ["reset", 0, 0],
      ["clear", 0, 0],
      ["halt", 0, 0],
      ["exit", 0, 1],
      ["run", 0, 1],
      ["facts", 0, 4],
      ["agenda", 0, 1],
      ["retract", 1, ANY],
      ["send", 2, ANY],
      ["printout", 1, ANY],
      ["read", 0, 1],
      ["readline", 0, 1],
      ["read-number", 0, 1],
      ["get-focus", 0, 0],
      ["get-focus-stack", 0, 0],
      ["pop-focus", 0, 0],
      ["list-focus-stack", 0, 0],
      ["clear-focus-stack", 0, 0],
      ["focus", 1, ANY],
      ["get-current-module", 0, 0],
      ["set-current-module", 1, 1],
      ["get-strategy", 0, 0],
      ["set-strategy", 1, 1],
      ["get-fact-duplication", 0, 0],
      ["set-fact-duplication", 1, 1],
      ["get-salience-evaluation", 0, 0],
      ["set-salience-evaluation", 1, 1],
      ["fact-index", 1, 1],
      ["fact-relation", 1, 1],
      ["fact-existp", 1, 1],
      ["fact-slot-value", 2, 2],
      ["fact-slot-names", 1, 1],
      ["get-fact-list", 0, 1],
      ["refresh-agenda", 0, 1],
      ["matches", 1, 2],
      ["refresh", 1, 1],
      ["set-break", 1, 1],
      ["remove-break", 0, 1],
      ["show-breaks", 0, 1],
      ["undefrule", 1, 1],
      ["undeffunction", 1, 1],
      ["undefglobal", 1, 1],
      ["undeffacts", 1, 1],
      ["undeftemplate", 1, 1],
      ["list-defrules", 0, 1],
      ["list-deftemplates", 0, 1],
      ["list-deffacts", 0, 1],
      ["list-deffunctions", 0, 1],
      ["list-defglobals", 0, 1],
      ["show-defglobals", 0, 1],
      ["sort", 1, ANY],
      ["expand$", 1, 1],
      ["check-syntax", 1, 1],
      ["dependencies", 1, 1],
      ["dependents", 1, 1],
      ["ppfact", 1, 3],
      ...MODULE_OF_FUNCTIONS.map((name) => [name, 1, 1] as const),
      ...[...TEMPLATE_FUNCTIONS].map(([name, n]) => [name, n, n] as const),
      ["list-defmodules", 0, 0],
      ["list-defclasses", 0, 1],
      ["list-definstances", 0, 1],
      ["list-defgenerics", 0, 1],
      // The generic-function commands (generic-commands.ts, generics.ts).
      ["ppdefgeneric", 1, 1],
      ["ppdefmethod", 2, 2],
      ["list-defmethods", 0, 1],
      ["get-defgeneric-list", 0, 1],
      ["get-defmethod-list", 0, 1],
      ["preview-generic", 1, ANY],
      ["undefgeneric", 1, 1],
      ["undefmethod", 2, 2],
      ["get-method-restrictions", 2, 2],
      ["call-next-method", 0, 0],
      ["next-methodp", 0, 0],
      ["rules", 0, 1],
      ["ppdefrule", 1, 1],
      ["ppdeftemplate", 1, 1],
      ["ppdeffacts", 1, 1],
      ["ppdeffunction", 1, 1],
      ["ppdefglobal", 1, 1],
      ["ppdefmodule", 1, 1],
      ["get-defrule-list", 0, 1],
      ["get-deftemplate-list", 0, 1],
      ["get-deffacts-list", 0, 1],
      ["get-deffunction-list", 0, 1],
      ["get-defglobal-list", 0, 1],
      ["get-defmodule-list", 0, 0],
      // COOL's introspection (objects.ts, introspect.ts, introspect-handlers.ts).
      ["ppdefclass", 1, 1],
      ["ppdefinstances", 1, 1],
      ["get-defclass-list", 0, 1],
      ["get-definstances-list", 0, 1],
      ["class-existp", 1, 1],
      ["superclassp", 2, 2],
      ["subclassp", 2, 2],
      ["class-superclasses", 1, 2],
      ["class-subclasses", 1, 2],
      ["class-slots", 1, 2],
      ["class-abstractp", 1, 1],
      ["class-reactivep", 1, 1],
      ["slot-existp", 2, 3],
      ["list-defmessage-handlers", 0, 2],
      ["get-defmessage-handler-list", 0, 2],
      ["ppdefmessage-handler", 2, 3],
      ["message-handler-existp", 2, 3],
      ["assert-string", 1, 1],
      ["watch", 1, ANY],
      ["unwatch", 1, ANY],
      ["list-watch-items", 0, ANY],
      ["gensym", 0, 0],
      ["gensym*", 0, 0],
      ["setgen", 1, 1],
      ["init-slots", 0, 0],
      ["delete-instance", 0, 0],
      ["ppinstance", 0, 0],
      ["call-next-handler", 0, 0],
      ["next-handlerp", 0, 0],
      ["unmake-instance", 1, ANY],
      ["class", 1, 1],
      ["instance-name", 1, 1],
      ["instance-address", 1, 2],
      ["symbol-to-instance-name", 1, 1],
      ["instance-name-to-symbol", 1, 1],
      ["instancep", 1, 1],
      ["instance-namep", 1, 1],
      ["instance-addressp", 1, 1],
      ["instance-existp", 1, 1],
      ["undefclass", 1, 1],
      ["undefinstances", 1, 1],
      ["browse-classes", 0, 1],
      ["preview-send", 2, 2],
      ...SLOT_FUNCTION_ARITIES,
      ["undefmessage-handler", 2, 3],
      ["describe-class", 1, 1],
      ["get-class-defaults-mode", 0, 0],
      ["set-class-defaults-mode", 1, 1],
      ["seed", 1, 1],
      ["random", 0, 2],
      ["eval", 1, 1],
      ["build", 1, 1],
      ["conserve-mem", 1, 1],
      ["release-mem", 0, 0],
      // The file functions (no-files.ts).
      ["load", 1, 1],
      ["load*", 1, 1],
      ["batch", 1, 1],
      ["batch*", 1, 1],
      ["load-facts", 1, 1],
      ["save-facts", 1, ANY],
      ["bsave", 1, 1],
      ["bload", 1, 1],
      ["save", 1, 1],
      ["dribble-on", 1, 1],
      ["dribble-off", 0, 0],
      ["load-instances", 1, 1],
      ["restore-instances", 1, 1],
      ["bload-instances", 1, 1],
      ["save-instances", 1, ANY],
      ["bsave-instances", 1, ANY],
      ["constructs-to-c", 2, 4],
      ["fetch", 1, 1],
      ["print-region", 2, ANY],
      ["get-region", 1, ANY],
      ["toss", 1, 1],
      ["system", 1, ANY],
      ["open", 2, 3],
      ["remove", 1, 1],
      ["rename", 2, 2],
      ["close", 0, 1],
    ] as const
  ).map(([name, min, max]) => [name, { min, max }] as const),
]);

/** A call's argument count out of a function's bounds: what to say, and what CLIPS prints. */
export interface ArityProblem {
  message: string;
  clips: string;
}

// At module level: arityProblem runs for every call a rule compiles (no closure per call).
const plural = (n: number) => `${n} argument${n === 1 ? "" : "s"}`;

/** Checks a call's argument count against a function's bounds (CLIPS checks them at parse time). */
export function arityProblem(name: string, count: number): ArityProblem | null {
  const b = BUILTINS.get(name) ?? SPECIAL_ARITY.get(name);
  if (!b) return null;
  if (count < b.min) {
    const how = b.min === b.max ? "exactly" : "at least";
    return {
      message: `function ${name} expects ${how} ${plural(b.min)}`,
      clips: `[ARGACCES4] Function ${name} expected ${how} ${b.min} argument(s)`,
    };
  }
  if (count > b.max) {
    const exactly = b.min === b.max;
    return {
      message: `function ${name} expects ${exactly ? "exactly" : "at most"} ${plural(b.max)}`,
      clips: `[ARGACCES4] Function ${name} expected ${exactly ? "exactly" : "no more than"} ${b.max} argument(s)`,
    };
  }
  return null;
}
