/** Parsing of the procedural constructs: deffunction and defglobal. */
import type { DeffunctionAst, DefglobalAst, Expr } from "./ast.js";
import { rulesParseError } from "./errors.js";
import { skipComment, symbolAt } from "./parse-constructs.js";
import { type ParseContext, parseExpr, splitModuleName } from "./parse-expr.js";
import { describe, type SAtom, type SList, type SNode } from "./reader.js";
import { checkBodyVariables } from "./rhs-variables.js";

/** The name of `(deffunction name …)`, read before the body so the body may call itself. */
export function deffunctionName(list: SList, ctx: ParseContext): string {
  return splitModuleName(symbolAt(list, 1, "a deffunction name", ctx).text, ctx).name;
}

/** `(deffunction name ["comment"] (?a ?b [$?rest]) action…)` */
export function parseDeffunction(list: SList, ctx: ParseContext): DeffunctionAst {
  const name = deffunctionName(list, ctx);
  ctx.construct = `deffunction ${name}`;
  const at = skipComment(list, 2);
  const paramList = list.items[at];
  // CLIPS's parameter-list errors, each echoed through the token it had just read.
  const bad = (at: SNode, clips: string): never => {
    throw rulesParseError(
      at.pos,
      "a parameter ?name (a last $?name takes the rest)",
      describe(at),
      {
        construct: ctx.construct,
        clips,
        echoThrough: true,
      },
    );
  };
  const SYNTAX = "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for parameter list.";
  if (paramList?.type !== "list") bad(paramList ?? list, SYNTAX);
  const params: string[] = [];
  let rest: string | null = null;
  for (const p of (paramList as SList).items) {
    if (p.type !== "atom" || (p.kind !== "sfvar" && p.kind !== "mfvar")) bad(p, SYNTAX);
    const { text, kind } = p as SAtom;
    if (params.includes(text) || rest === text) {
      bad(p, "[PRCCODE7] Duplicate parameter names not allowed.");
    }
    if (rest !== null) bad(p, "[PRCCODE8] No parameters allowed after wildcard parameter.");
    if (kind === "mfvar") rest = text;
    else params.push(text);
  }
  const body = list.items.slice(at + 1).map((n) => parseExpr(n, ctx));
  // CLIPS refuses a body reading a variable no parameter or earlier bind binds.
  checkBodyVariables(
    body,
    rest === null ? params : [...params, rest],
    ctx.construct ?? "",
    "deffunction",
  );
  return { name, params, rest, body, source: list.source };
}

/** `(defglobal [module] ?*name* = expr …)`; the parser learns each name as it is read. */
export function parseDefglobal(
  list: SList,
  ctx: ParseContext,
  declare: (name: string) => void,
): DefglobalAst {
  ctx.construct = "defglobal";
  const items = list.items;
  let k = 1;
  if (items[1]?.type === "atom" && items[1].kind === "symbol") k = 2;
  const globals: { name: string; init: Expr }[] = [];
  while (k < items.length) {
    const v = items[k] as SNode;
    const eq = items[k + 1];
    const init = items[k + 2];
    if (v.type !== "atom" || v.kind !== "gvar") {
      throw rulesParseError(v.pos, "a global variable ?*name*", describe(v), {
        construct: ctx.construct,
      });
    }
    if (eq?.type !== "atom" || eq.text !== "=" || init === undefined) {
      throw rulesParseError(eq?.pos ?? v.pos, "'=' and a value", describe(eq), {
        construct: ctx.construct,
        hint: "Write (defglobal ?*name* = value).",
      });
    }
    globals.push({ name: v.text, init: parseExpr(init, ctx) });
    declare(v.text);
    k += 3;
  }
  return { globals, source: list.source };
}

/** `(defmodule NAME ["comment"] (import …) (export …))`: its name (imports and exports are not kept). */
export function parseDefmodule(list: SList, ctx: ParseContext): string {
  ctx.construct = "defmodule";
  return symbolAt(list, 1, "a module name", ctx).text;
}
