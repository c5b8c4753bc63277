/**
 * Parsing of defgeneric and defmethod as CLIPS 6.30 reads them (genrcpsr.c): the checks come in
 * CLIPS's order and each error carries CLIPS's message and its `ERROR:` echo, the text CLIPS's
 * pretty-print buffer held when it stopped (built here token by token, as CLIPS saves it).
 *
 * @example
 * // (defmethod bad ((?a INTEGER NUMBER))) fails with
 * // "[GENRCPSR15] INTEGER class is redundant." and the echo "(defmethod MAIN::bad\n   ((?a INTEGER NUMBER"
 */
import { isKeelError, type KeelError } from "../core/index.js";
import type { Expr, MethodAst, MethodParam } from "./ast.js";
import { checkActionsContext } from "./command-context.js";
import { rulesParseError } from "./errors.js";
import type { ClassDef } from "./objects.js";
import { type ParseContext, parseExpr, splitModuleName } from "./parse-expr.js";
import { ppDefmethod, ppExpression } from "./pp-constructs.js";
import { tokenText } from "./pp-reader.js";
import { describe, type SAtom, type SList, type SNode } from "./reader.js";
import { checkBodyVariables } from "./rhs-variables.js";

/** What the parser asks of the engine about names and classes. */
export interface GenericScope {
  /** CLIPS's message when `name` may not name a generic function (ValidGenericName), else null. */
  refuse(name: string): string | null;
  /** A class (user or system) by name, for parameter restrictions. */
  classNamed(name: string): ClassDef | undefined;
}

/** System functions CLIPS will not let a generic function overload ([GENRCPSR16]). */
export const NOT_OVERLOADABLE: ReadonlySet<string> = new Set([
  "any-instancep",
  "assert",
  "bind",
  "break",
  "call-next-handler",
  "call-next-method",
  "call-specific-method",
  "delayed-do-for-all-instances",
  "do-for-all-instances",
  "do-for-instance",
  "duplicate",
  "expand$",
  "find-all-instances",
  "find-instance",
  "foreach",
  "if",
  "initialize-instance",
  "loop-for-count",
  "make-instance",
  "modify",
  "next-handlerp",
  "next-methodp",
  "override-next-handler",
  "override-next-method",
  "progn",
  "progn$",
  "return",
  "switch",
  "while",
]);

/** How CLIPS's echo shows a token: an atom's text, a list's `(`, the end `)`. */
function shown(n: SNode | undefined): string {
  if (n === undefined) return ")";
  return n.type === "atom" ? tokenText(n) : "(";
}

/** A parse error with CLIPS's message and the echo CLIPS prints after it. */
function refused(at: SNode | undefined, list: SList, clips: string, echoText: string): KeelError {
  const error = rulesParseError(at?.pos ?? list.pos, "a valid generic function", describe(at), {
    construct: (list.items[0] as SAtom).text,
    clips,
  });
  Object.assign(error.details, { echoText });
  return error;
}

/** The name, or [CSTRCPSR2] (CLIPS says defgeneric for a defmethod too) echoed with its keyword. */
function nameOf(list: SList, ctx: ParseContext): SAtom {
  const kind = (list.items[0] as SAtom).text;
  const name = list.items[1];
  if (name?.type === "atom" && name.kind === "symbol") {
    splitModuleName(name.text, ctx);
    return name;
  }
  throw refused(
    name,
    list,
    "[CSTRCPSR2] Missing name for defgeneric construct",
    `(${kind} ${shown(name)}`,
  );
}

function qualified(name: SAtom, module: string): string {
  return name.text.includes("::") ? name.text : `${module}::${name.text}`;
}

function bare(name: SAtom): string {
  const at = name.text.indexOf("::");
  return at < 0 ? name.text : name.text.slice(at + 2);
}

/** `(defgeneric name ["comment"])`: the generic's name, after CLIPS's checks. */
export function parseDefgeneric(
  list: SList,
  ctx: ParseContext,
  module: string,
  scope: GenericScope,
): string {
  ctx.construct = "defgeneric";
  const name = nameOf(list, ctx);
  let echo = `(defgeneric ${qualified(name, module)}`;
  let at = 2;
  const comment = list.items[at];
  if (comment?.type === "atom" && comment.kind === "string") {
    echo += ` ${tokenText(comment)}`;
    at++;
  }
  const next = list.items[at];
  echo += next === undefined ? ")" : `\n   ${shown(next)}`;
  const refusal = scope.refuse(bare(name));
  if (refusal !== null) throw refused(name, list, refusal, echo);
  if (next !== undefined) {
    throw refused(next, list, "[GENRCPSR1] Expected ')' to complete defgeneric.", echo);
  }
  return bare(name);
}

/** Where a defmethod's header ends: its name, index, and the echo CLIPS wrote up to there. */
interface MethodHeader {
  readonly name: string;
  readonly index: number;
  /** The position of the parameter list in the form. */
  readonly at: number;
  readonly echo: string;
}

/**
 * The header of `(defmethod name [index] ["comment"] …)` (ParseMethodNameAndIndex), then CLIPS's
 * name checks: read before the parameters, so a method may call its own generic.
 */
export function defmethodName(
  list: SList,
  ctx: ParseContext,
  module: string,
  scope: GenericScope,
): string {
  return methodHeader(list, ctx, module, scope).name;
}

function methodHeader(
  list: SList,
  ctx: ParseContext,
  module: string,
  scope: GenericScope,
): MethodHeader {
  const name = nameOf(list, ctx);
  let echo = `(defmethod ${qualified(name, module)}`;
  let at = 2;
  let index = 0;
  const idx = list.items[at];
  if (idx?.type === "atom" && idx.kind === "integer") {
    echo += ` ${idx.text}`;
    // CLIPS reads the index into a C int: 2147483648 wraps to a negative one.
    index = Number(BigInt.asIntN(32, BigInt(idx.text)));
    if (index < 1) throw refused(idx, list, "[GENRCPSR6] Method index out of range.", echo);
    at++;
  }
  const comment = list.items[at];
  if (comment?.type === "atom" && comment.kind === "string") {
    echo += ` ${tokenText(comment)}`;
    at++;
  }
  const next = list.items[at];
  // After an index or comment CLIPS starts a line before it reads the next token, even `)`.
  echo += next === undefined && at === 2 ? ")" : `\n   ${shown(next)}`;
  const refusal = scope.refuse(bare(name));
  if (refusal !== null) throw refused(name, list, refusal, echo);
  return { name: bare(name), index, at, echo };
}

/** `(defmethod name [index] ["comment"] (param… [$?rest]) action…)` */
export function parseDefmethod(
  list: SList,
  ctx: ParseContext,
  module: string,
  scope: GenericScope,
): MethodAst {
  const head = methodHeader(list, ctx, module, scope);
  const { name, index } = head;
  ctx.construct = `defmethod ${name}`;
  const plist = list.items[head.at];
  if (plist?.type !== "list") {
    throw refused(
      plist,
      list,
      "[GENRCPSR7] Expected a '(' to begin method parameter restrictions.",
      head.echo,
    );
  }
  const params = readParameters(plist, list, ctx, scope, head.echo);
  const restName = params.rest?.name;
  const names = [...params.list.map((p) => p.name), ...(restName ? [restName] : [])];
  const body = list.items.slice(head.at + 1).map((n) => parseExpr(n, ctx));
  try {
    checkActionsContext(body);
  } catch (e) {
    // The printer does not replay defmethods: the echo is the method's text through `(break`
    // (the first one after the parameters, the one CLIPS stopped at unless a loop held another).
    const whole = ppDefmethod(list, module);
    const at = whole?.indexOf("(break", head.echo.length) ?? -1;
    if (isKeelError(e) && whole && at >= 0) {
      Object.assign(e.details, { echoText: whole.slice(0, at + "(break".length) });
    }
    throw e;
  }
  try {
    // CLIPS refuses a body reading a variable no parameter or bind binds ([PRCCODE3]).
    checkBodyVariables(body, names, ctx.construct, "method", true);
  } catch (e) {
    // Found once the whole method was read: the echo is all of it, its `)` on a line of its own.
    const whole = ppDefmethod(list, module);
    if (isKeelError(e) && whole !== null) {
      Object.assign(e.details, { echoText: `${whole.slice(0, -2)}\n   )` });
    }
    throw e;
  }
  return { name, index, params: params.list, rest: params.rest, body, source: list.source };
}

/** A method's parameters (ParseMethodParameters), each error echoed through its token. */
function readParameters(
  plist: SList,
  list: SList,
  ctx: ParseContext,
  scope: GenericScope,
  header: string,
): { list: MethodParam[]; rest: MethodParam | null } {
  let echo = header;
  const out: MethodParam[] = [];
  let rest: MethodParam | null = null;
  const seen = new Set<string>();
  const fail = (at: SNode | undefined, clips: string): never => {
    throw refused(at, list, clips, echo);
  };
  const variable = (v: SAtom): void => {
    if (seen.has(v.text)) fail(v, "[PRCCODE7] Duplicate parameter names not allowed.");
    seen.add(v.text);
  };
  for (const [k, p] of plist.items.entries()) {
    echo += k === 0 ? shown(p) : `\n    ${shown(p)}`;
    if (rest !== null) fail(p, "[PRCCODE8] No parameters allowed after wildcard parameter.");
    let param: MethodParam = { name: "", types: [], query: null };
    if (p.type === "atom" && (p.kind === "sfvar" || p.kind === "mfvar")) {
      variable(p);
      param = { name: p.text, types: [], query: null };
    } else if (p.type === "list") {
      const v = p.items[0];
      echo += shown(v);
      if (v?.type !== "atom" || (v.kind !== "sfvar" && v.kind !== "mfvar")) {
        fail(v, "[GENRCPSR8] Expected a variable for parameter specification.");
      }
      variable(v as SAtom);
      echo += " ";
      const restriction = readRestriction(p, ctx, scope, echo, list);
      echo = restriction.echo;
      param = { name: (v as SAtom).text, types: restriction.types, query: restriction.query };
    } else {
      fail(p, "[GENRCPSR9] Expected a variable or '(' for parameter specification.");
    }
    const wildcard = (p.type === "list" ? p.items[0] : p) as SAtom;
    if (wildcard.kind === "mfvar") rest = param;
    else out.push(param);
  }
  return { list: out, rest };
}

/** A parameter's classes and query (ParseRestriction), after `(?name `. */
function readRestriction(
  p: SList,
  ctx: ParseContext,
  scope: GenericScope,
  start: string,
  list: SList,
): { types: string[]; query: Expr | null; echo: string } {
  let echo = start;
  const types: ClassDef[] = [];
  let query: Expr | null = null;
  const fail = (at: SNode, clips: string): never => {
    throw refused(at, list, clips, echo);
  };
  for (const r of p.items.slice(1)) {
    echo += r.type === "list" ? ppExpression(r) : shown(r);
    if (query !== null) fail(r, "[GENRCPSR10] Query must be last in parameter restriction.");
    if (r.type === "atom" && r.kind === "symbol") {
      const cls = scope.classNamed(r.text);
      if (cls === undefined) fail(r, "[GENRCPSR14] Unknown class in method.");
      const c = cls as ClassDef;
      for (const t of types) {
        if (t.name === c.name)
          fail(r, "[GENRCPSR11] Duplicate classes not allowed in parameter restriction.");
        const sub = t.cpl.includes(c) ? t : c.cpl.includes(t) ? c : null;
        if (sub !== null) fail(r, `[GENRCPSR15] ${sub.name} class is redundant.`);
      }
      types.push(c);
    } else if (r.type === "list") {
      query = parseExpr(r, ctx);
      if (hasBind(query)) fail(r, "[GENRCPSR12] Binds are not allowed in query expressions.");
    } else if (r.kind === "gvar") {
      query = parseExpr(r, ctx);
    } else {
      fail(r, "[GENRCPSR13] Expected a valid class name or query.");
    }
    echo += " ";
  }
  echo = `${echo.endsWith(" ") ? echo.slice(0, -1) : echo})`;
  if (types.length === 0 && query === null) {
    fail(p, "[GENRCPSR13] Expected a valid class name or query.");
  }
  return { types: types.map((t) => t.name), query, echo };
}

/** Whether an expression binds a variable anywhere. */
function hasBind(e: unknown): boolean {
  if (e === null || typeof e !== "object") return false;
  if ((e as { k?: unknown }).k === "bind") return true;
  return Object.values(e).some(hasBind);
}
