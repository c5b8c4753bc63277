/** Parsing of the procedural constructs: deffunction and defglobal. */
import { isKeelError, type KeelError } from "../core/index.js";
import type { DeffunctionAst, Expr } from "./ast.js";
import { checkActionsContext } from "./command-context.js";
import { rulesParseError } from "./errors.js";
import { checkModuleSpecs } from "./modules-syntax.js";
import { skipComment, symbolAt } from "./parse-constructs.js";
import { type ParseContext, parseExpr, splitModuleName } from "./parse-expr.js";
import { ppDefglobal } from "./pp-constructs.js";
import { tokenText } from "./pp-reader.js";
import { describe, type SAtom, type SList, type SNode } from "./reader.js";
import { checkBodyVariables } from "./rhs-variables.js";

/** The name of `(deffunction name …)`, read before the body so the body may call itself. */
export function deffunctionName(list: SList, ctx: ParseContext): string {
  checkConstructName(list);
  return splitModuleName(symbolAt(list, 1, "a deffunction name", ctx).text, ctx).name;
}

/**
 * [CSTRCPSR2] when a construct has no name: CLIPS echoes the construct's keyword and the token
 * found in the name's place.
 */
export function checkConstructName(list: SList): void {
  const kind = (list.items[0] as SAtom).text;
  const name = list.items[1];
  if (name?.type === "atom" && name.kind === "symbol") return;
  const found = name === undefined ? ")" : name.type === "list" ? "(" : tokenText(name);
  const error = rulesParseError(name?.pos ?? list.pos, `a ${kind} name`, describe(name), {
    construct: kind,
    clips: `[CSTRCPSR2] Missing name for ${kind} construct`,
  });
  Object.assign(error.details, { echoText: `(${kind} ${found}` });
  throw error;
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
  checkActionsContext(body);
  // CLIPS refuses a body reading a variable no parameter or earlier bind binds.
  checkBodyVariables(
    body,
    rest === null ? params : [...params, rest],
    ctx.construct ?? "",
    "deffunction",
    true,
  );
  return { name, params, rest, body, source: list.source };
}

/**
 * `(defglobal [module] ?*name* = expr …)` read as CLIPS reads it: one global at a time, each
 * defined (`define` evaluates its value) before the next is read, so an error leaves the globals
 * before it defined. Each error's echo is CLIPS's, which starts again after each global:
 * `(defglobal MAIN ` and what was read of the failing one. Returns the names defined.
 */
export function readDefglobal(
  list: SList,
  ctx: ParseContext,
  hasModule: (name: string) => boolean,
  define: (name: string, init: Expr, module: string, value: SNode) => void,
  /** Whether defining the global in the module is an import/export conflict ([CSTRCPSR3]). */
  conflicts: (name: string, module: string) => boolean = () => false,
): string[] {
  ctx.construct = "defglobal";
  const items = list.items;
  let k = 1;
  let module = ctx.currentModule ?? "MAIN";
  const first = items[1];
  if (first?.type === "atom" && first.kind === "symbol") {
    if (!hasModule(first.text)) {
      throw defglobalError(
        first,
        `[PRNTUTIL1] Unable to find defmodule ${first.text}.`,
        `(defglobal ${first.text}`,
      );
    }
    module = first.text;
    k = 2;
  }
  const head = `(defglobal ${module} `;
  const defined: string[] = [];
  // Globals are looked up when the value is evaluated ([GLOBLDEF1] there), not when it is read.
  const valueCtx: ParseContext = { ...ctx, hasGlobal: () => true };
  while (k < items.length) {
    const v = items[k] as SNode;
    const syntax = (read: string): never => {
      throw defglobalError(
        v,
        "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for defglobal.",
        head + read,
      );
    };
    if (v.type !== "atom" || v.kind !== "gvar") syntax(tokenOf(v));
    const name = (v as SAtom).text;
    if (conflicts(name, module)) {
      throw defglobalError(
        v,
        `[CSTRCPSR3] Cannot define defglobal ${name} because of an import/export conflict.`,
        `${head}?*${name}* `,
      );
    }
    const eq = items[k + 1];
    if (eq?.type !== "atom" || eq.kind !== "symbol" || eq.text !== "=") {
      syntax(`?*${name}* ${eq === undefined ? ")" : tokenOf(eq)}`);
    }
    const init = items[k + 2];
    if (init === undefined) {
      throw defglobalError(
        eq as SNode,
        "[EXPRNPSR2] Expected a constant, variable, or expression.",
        `${head}?*${name}* = )`,
      );
    }
    const read = ppDefglobal(module, name, init).slice(0, -2);
    try {
      define(name, parseExpr(init, valueCtx), module, init);
    } catch (e) {
      // The value's own messages were printed or are the error's; the echo is through it.
      if (isKeelError(e)) Object.assign(e.details, { echoText: read });
      throw e;
    }
    defined.push(name);
    k += 3;
  }
  return defined;
}

/** A token as CLIPS's echo shows it: an atom's text, a list's `(`. */
function tokenOf(n: SNode): string {
  return n.type === "atom" ? tokenText(n) : "(";
}

function defglobalError(at: SNode, clips: string, echoText: string): KeelError {
  const error = rulesParseError(
    at.pos,
    "a defglobal as (defglobal ?*name* = value)",
    describe(at),
    {
      construct: "defglobal",
      clips,
      hint: "Write (defglobal ?*name* = value).",
    },
  );
  Object.assign(error.details, { echoText });
  return error;
}

/** `(defmodule NAME ["comment"] (import …) (export …))`: its name (imports and exports are not kept). */
export function parseDefmodule(
  list: SList,
  ctx: ParseContext,
  onImport?: Parameters<typeof checkModuleSpecs>[1],
): string {
  ctx.construct = "defmodule";
  checkConstructName(list);
  const name = symbolAt(list, 1, "a module name", ctx).text;
  if (name.includes("::")) {
    // CLIPS reads `A::b`, `::` and the like as a module specifier, which a defmodule's name
    // may not be.
    const error = rulesParseError(list.items[1]?.pos ?? list.pos, "a module name", name, {
      construct: "defmodule",
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for module specifier.",
    });
    Object.assign(error.details, { echoText: `(defmodule ${name}` });
    throw error;
  }
  checkModuleSpecs(list, onImport);
  return name;
}
