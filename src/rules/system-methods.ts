/**
 * The implicit method a generic function gets when it overloads a system function (CLIPS 6.30's
 * AddImplicitMethods): the function itself, listed as `#SYS1`, with restrictions CLIPS derives
 * from the function's argument types. Each entry is the restrictions as `list-defmethods` prints
 * them (recorded from CLIPS 6.30), and the most arguments the function takes when a `<qry>`
 * limits its wildcard.
 */
import type { MethodParam } from "./ast.js";

/** The restrictions of the system functions Keel lets a generic function overload. */
const TABLE: Readonly<Record<string, string | readonly [string, number]>> = {
  "+": "(NUMBER) (NUMBER) ($? NUMBER)",
  "-": "(NUMBER) (NUMBER) ($? NUMBER)",
  "*": "(NUMBER) (NUMBER) ($? NUMBER)",
  "/": "(NUMBER) (NUMBER) ($? NUMBER)",
  div: "(NUMBER) (NUMBER) ($? NUMBER)",
  "=": "(NUMBER) (NUMBER) ($? NUMBER)",
  "<>": "(NUMBER) (NUMBER) ($? NUMBER)",
  "<": "(NUMBER) (NUMBER) ($? NUMBER)",
  ">": "(NUMBER) (NUMBER) ($? NUMBER)",
  "<=": "(NUMBER) (NUMBER) ($? NUMBER)",
  ">=": "(NUMBER) (NUMBER) ($? NUMBER)",
  max: "(NUMBER) (NUMBER) ($? NUMBER)",
  min: "(NUMBER) (NUMBER) ($? NUMBER)",
  mod: "(NUMBER) (NUMBER)",
  "**": "(NUMBER) (NUMBER)",
  abs: "(NUMBER)",
  integer: "(NUMBER)",
  float: "(NUMBER)",
  sqrt: "(NUMBER)",
  "str-cat": "() $?",
  "sym-cat": "() $?",
  create$: "$?",
  length$: "(MULTIFIELD LEXEME)",
  nth$: "(INTEGER) (MULTIFIELD)",
  member$: "() (MULTIFIELD)",
  eq: "() () $?",
  neq: "() () $?",
  upcase: "(INSTANCE-NAME LEXEME)",
  lowcase: "(INSTANCE-NAME LEXEME)",
  "str-length": "(INSTANCE-NAME LEXEME)",
  "sub-string": "(INTEGER) (INTEGER) (INSTANCE-NAME LEXEME)",
  "mv-slot-replace": "(INSTANCE SYMBOL) (SYMBOL) (INTEGER) (INTEGER) () $?",
  "class-slots": ["(SYMBOL) ($? SYMBOL <qry>)", 2],
  send: "() (SYMBOL) $?",
};

/** A system function's implicit method: its parameters, wildcard and argument bound. */
export interface SystemMethod {
  readonly params: MethodParam[];
  readonly rest: MethodParam | null;
  /** The most arguments (the wildcard's query), or undefined for no bound. */
  readonly maxArgs?: number;
}

/** Stands for the argument-count query CLIPS shows as `<qry>` (see {@link SystemMethod.maxArgs}). */
const COUNT_QUERY = { k: "const", v: "TRUE" } as const;

/** The implicit method of system function `name`, or undefined when Keel does not overload it. */
export function systemMethod(name: string): SystemMethod | undefined {
  const entry = TABLE[name];
  if (entry === undefined) return undefined;
  const [text, maxArgs] = typeof entry === "string" ? [entry, undefined] : entry;
  const params: MethodParam[] = [];
  let rest: MethodParam | null = null;
  for (const m of text.matchAll(/\(([^)]*)\)|\$\?/g)) {
    const words = m[1] === undefined ? ["$?"] : m[1].split(" ").filter((w) => w !== "");
    const wildcard = words[0] === "$?";
    const query = words.includes("<qry>") ? COUNT_QUERY : null;
    const types = words.filter((w) => w !== "$?" && w !== "<qry>");
    const param = { name: wildcard ? "rest" : `p${params.length}`, types, query };
    if (wildcard) rest = param;
    else params.push(param);
  }
  return { params, rest, ...(maxArgs !== undefined ? { maxArgs } : {}) };
}
