import type { KeelError } from "../core/index.js";
import type { Expr, FactSpec, SlotDef, SlotSpec, Template } from "./ast.js";
import { rulesLoadError, rulesParseError } from "./errors.js";
import { argKind, returnTypes } from "./function-types.js";
import { arityProblem } from "./functions.js";
import { parseQuery } from "./query-parse.js";
import { describe, lastToken, type SAtom, type SList, type SNode } from "./reader.js";
import {
  returnsMultifield,
  singleFieldSlotMessage,
  slotValueMessage,
  staticViolation,
  violationText,
} from "./template-defaults.js";
import { valueType } from "./value-domain.js";
import type { Value } from "./values.js";

/** What the parser needs to know about the engine: templates and functions defined so far. */
export interface ParseContext {
  template(name: string): Template | undefined;
  /** Whether a class is defined, for the instance-set queries (absent: any name is). */
  hasClass?(name: string): boolean;
  /**
   * How many classes an object pattern can match: reactive concrete ones, of `isa` or below
   * (null: any), having each slot of `slots` (absent: object patterns are not checked).
   */
  objectCandidates?(isa: readonly string[] | null, slots: readonly string[]): number;
  /**
   * The class a name stands for from the current module, as `MOD::NAME` (CLIPS's
   * LookupDefclassByMdlOrScope): an object pattern's classes are those (absent or unknown: the
   * bare name, matching a class of that name in any module).
   */
  classKey?(name: string): string | undefined;
  /** CLIPS's CheckAllowedClassesConstraint: whether `v` names an instance of one of `classes`. */
  ofClasses?(v: Value, classes: readonly string[]): boolean;
  /** Whether a deftemplate exists, implied ones included, for the fact-set queries. */
  hasDeftemplate?(name: string): boolean;
  hasFunction(name: string): boolean;
  /** Whether a defglobal `?*name*` is defined (absent: globals are refused). */
  hasGlobal?(name: string): boolean;
  /** Whether a generic function overloads system function `name` (its calls then dispatch). */
  overloaded?(name: string): boolean;
  /**
   * Whether an implied deftemplate `name` made in the current module would be an import/export
   * conflict (CLIPS's [CSTRCPSR3]; absent: never).
   */
  impliedConflict?(name: string): boolean;
  /**
   * The key of the implied deftemplate a pattern on the relation `name` matches, made in the
   * current module when it sees none (absent: the bare name).
   */
  impliedKey?(name: string): string;
  /**
   * The key (module-scope.ts) of the deffunction or generic function a call names from the
   * current module; a built-in function's name stays.
   */
  functionKey?(name: string): string;
  /** The current defmodule: constructs without a `MODULE::` prefix belong to it (absent: MAIN). */
  currentModule?: string;
  /** Set while parsing a construct, for messages. */
  construct?: string;
  /**
   * Evaluates a deftemplate slot's static `(default …)` when the template is read, as CLIPS
   * does (absent: the default is evaluated for each fact).
   */
  evaluate?(exprs: readonly Expr[]): Value[];
  /** Whether the deffunction `name` takes `count` arguments (null: no such deffunction). */
  deffunctionAccepts?(name: string, count: number): boolean | null;
  /** CLIPS's [ARGACCES4] message for a call of the deffunction `name` with a wrong count. */
  deffunctionArityText?(name: string): string;
  /**
   * Whether sequence operator recognition is on: a call's `$?x` argument then stands for its
   * fields, as `(expand$ $?x)` does.
   */
  sequenceExpansion?(): boolean;
}

/** Parses an expression: a constant, a variable or a function call (with the special forms). */
export function parseExpr(node: SNode, ctx: ParseContext): Expr {
  if (node.type === "atom") {
    switch (node.kind) {
      case "sfvar":
        return { k: "var", name: node.text, mf: false, pos: node.pos };
      case "mfvar": {
        // `$?*name*`: a defglobal's fields, always spliced into the call as CLIPS's expand$ does.
        const global = /^\*(.+)\*$/.exec(node.text)?.[1];
        if (global === undefined) return { k: "var", name: node.text, mf: true, pos: node.pos };
        if (!ctx.hasGlobal?.(global)) throw undefinedGlobal({ ...node, text: global }, ctx);
        const value: Expr = { k: "gvar", name: global, pos: node.pos };
        return { k: "call", fn: "expand$", args: [value], pos: node.pos };
      }
      case "gvar":
        if (!ctx.hasGlobal?.(node.text)) throw undefinedGlobal(node, ctx);
        return { k: "gvar", name: node.text, pos: node.pos };
      case "sfwild":
      case "mfwild":
      case "and":
      case "or":
      case "not":
        throw rulesParseError(node.pos, "an expression", describe(node), {
          construct: ctx.construct,
          // A wildcard or connective where an argument belongs.
          clips: NO_EXPRESSION,
          echoThrough: true,
        });
      default:
        return { k: "const", v: node.value };
    }
  }
  return parseCall(node, ctx);
}

function headName(list: SList, ctx: ParseContext): string {
  const head = list.items[0];
  if (
    head === undefined ||
    head.type !== "atom" ||
    (head.kind !== "symbol" && head.kind !== "and" && head.kind !== "or")
  ) {
    // `()` too: CLIPS reads its `)` where the name belongs.
    const constant =
      head === undefined ||
      (head.type === "atom" && head.kind !== "sfvar" && head.kind !== "mfvar");
    // A list where the name belongs: CLIPS stops at its `(`.
    const nested = head?.type === "list";
    throw rulesParseError(
      (constant || nested) && head ? head.pos : list.pos,
      "a function name after '('",
      describe(head),
      {
        construct: ctx.construct,
        hint: "A call looks like (function-name arg…).",
        // A constant where the name belongs (a number, string, instance name).
        ...(constant
          ? { clips: "[EXPRNPSR1] A function name must be a symbol", echoThrough: true }
          : nested
            ? { clips: "[EXPRNPSR1] A function name must be a symbol", echoOpen: true }
            : {}),
      },
    );
  }
  return head.text;
}

function parseCall(list: SList, ctx: ParseContext): Expr {
  const fn = headName(list, ctx);
  if (!SPECIAL_FORMS.has(fn)) return parseFunctionCall(list, fn, ctx);
  const rest = list.items.slice(1);
  switch (fn) {
    case "assert":
      if (rest.length === 0) {
        throw rulesParseError(list.pos, "at least one fact", "')'", {
          construct: ctx.construct,
          clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for assert command.",
        });
      }
      return { k: "assert", facts: rest.map((n) => parseFactSpec(n, ctx)), pos: list.pos };
    case "modify":
    case "duplicate": {
      const target = rest[0];
      if (target === undefined) {
        throw rulesParseError(list.pos, "a fact address or index", "')'", {
          construct: ctx.construct,
        });
      }
      if (ctx.construct !== undefined && target.type === "atom" && target.kind === "integer") {
        // Only a top-level command may name the fact by its index.
        throw rulesParseError(target.pos, "a fact address", "a fact index", {
          construct: ctx.construct,
          clips: `[TMPLTFUN1] Fact-indexes can only be used by ${fn} as a top level command.`,
          echoThrough: true,
        });
      }
      return {
        k: fn,
        target: parseExpr(target, ctx),
        slots: rest.slice(1).map((n) => parseSlotSpec(n, ctx)),
        pos: list.pos,
      };
    }
    case "if":
      return parseIf(list, ctx);
    case "while": {
      const cond = rest[0];
      if (cond === undefined)
        throw rulesParseError(list.pos, "a condition", "')'", {
          construct: ctx.construct,
          clips: NO_EXPRESSION,
          echoThrough: true,
        });
      // CLIPS wants `do` or an action's `(` after the condition.
      const next = rest[1];
      if (next === undefined || (next.type === "atom" && next.text !== "do")) {
        throw rulesParseError((next ?? list).pos, "'do' or an action", describe(next), {
          construct: ctx.construct,
          clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for while function.",
          echoThrough: true,
        });
      }
      if (cond.type === "atom" && cond.kind === "mfvar" && ctx.sequenceExpansion?.() === true) {
        noSequence("while", list, ctx);
      }
      let body = rest.slice(1);
      const first = body[0];
      if (first?.type === "atom" && first.kind === "symbol" && first.text === "do")
        body = body.slice(1);
      return { k: "while", cond: parseExpr(cond, ctx), body: body.map((n) => parseExpr(n, ctx)) };
    }
    case "bind": {
      const v = rest[0];
      if (v?.type === "atom" && v.kind === "gvar") {
        if (!ctx.hasGlobal?.(v.text)) throw undefinedGlobal(v, ctx);
        return {
          k: "bind",
          name: v.text,
          value: rest.slice(1).map((n) => parseExpr(n, ctx)),
          pos: list.pos,
          global: true,
        };
      }
      if (v === undefined || v.type !== "atom" || (v.kind !== "sfvar" && v.kind !== "mfvar")) {
        throw rulesParseError(v?.pos ?? list.pos, "a variable to bind", describe(v), {
          construct: ctx.construct,
          clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for bind function.",
        });
      }
      return {
        k: "bind",
        name: v.text,
        value: rest.slice(1).map((n) => parseExpr(n, ctx)),
        pos: list.pos,
      };
    }
    case "loop-for-count":
      return parseLoop(list, ctx);
    case "progn$":
    case "foreach":
      return parseForeach(list, ctx);
    case "switch":
      return parseSwitch(list, ctx);
    case "make-instance":
      return parseMakeInstance(list, ctx);
    case "modify-instance":
    case "message-modify-instance":
      return parseModifyInstance(list, ctx);
    case "initialize-instance":
      return parseInitializeInstance(list, ctx);
    case "duplicate-instance":
    case "message-duplicate-instance":
      return parseDuplicateInstance(list, ctx);
    default:
      if (QUERY_FUNCTIONS.has(fn)) return parseQuery(list, fn, ctx, parseExpr);
      return parseFunctionCall(list, fn, ctx);
  }
}

/** The instance-set and fact-set query functions (CLIPS BPG 9.7 and 12.9.12). */
export const QUERY_FUNCTIONS: ReadonlySet<string> = new Set([
  "any-instancep",
  "find-instance",
  "find-all-instances",
  "do-for-instance",
  "do-for-all-instances",
  "delayed-do-for-all-instances",
  "any-factp",
  "find-fact",
  "find-all-facts",
  "do-for-fact",
  "do-for-all-facts",
  "delayed-do-for-all-facts",
]);

/** The calls {@link parseCall} reads a shape of their own for (not `(fn arg…)`). */
const SPECIAL_FORMS = new Set([
  "assert",
  "modify",
  "duplicate",
  "if",
  "while",
  "bind",
  "loop-for-count",
  "progn$",
  "foreach",
  "switch",
  "make-instance",
  "modify-instance",
  "message-modify-instance",
  "initialize-instance",
  "duplicate-instance",
  "message-duplicate-instance",
  ...QUERY_FUNCTIONS,
]);

/** `(make-instance [name] of CLASS (slot value…)…)`, the name may be an expression or absent. */
function parseMakeInstance(list: SList, ctx: ParseContext): Expr {
  const items = list.items;
  let k = 1;
  let name: Expr | null = null;
  const isOf = (n: SNode | undefined) =>
    n?.type === "atom" && n.kind === "symbol" && n.text === "of";
  if (!isOf(items[1])) {
    const n = items[1];
    if (n === undefined) {
      throw rulesParseError(list.pos, "an instance name and 'of'", "')'", {
        construct: ctx.construct,
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for instance.",
      });
    }
    name = parseExpr(n, ctx);
    k = 2;
  }
  if (!isOf(items[k])) {
    throw rulesParseError(items[k]?.pos ?? list.pos, "'of' and a class name", describe(items[k]), {
      construct: ctx.construct,
      hint: "Write (make-instance name of CLASS (slot value)…).",
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for make-instance.",
    });
  }
  const clsNode = items[k + 1];
  if (clsNode === undefined) {
    throw rulesParseError(list.pos, "a class name", "')'", {
      construct: ctx.construct,
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for instance class.",
    });
  }
  const cls = parseExpr(clsNode, ctx);
  const slots = parseSlotOverrides(items.slice(k + 2), ctx);
  return { k: "make-instance", name, cls, slots, pos: list.pos };
}

/** `(slot value…)…` of make-instance and modify-instance. */
function parseSlotOverrides(
  nodes: readonly SNode[],
  ctx: ParseContext,
): { name: string; nameExpr?: Expr; values: Expr[] }[] {
  return nodes.map((n) => {
    const head = n.type === "list" ? n.items[0] : undefined;
    if (n.type !== "list" || head === undefined) {
      throw rulesParseError(n.pos, "a slot override (slot value…)", describe(n), {
        construct: ctx.construct,
        ...(n.type === "list" && n.items.length === 0
          ? { clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for slot-override." }
          : {}),
      });
    }
    // With sequence-operator-recognition on, `$?x` passes its fields as separate put- arguments.
    const expand = ctx.sequenceExpansion?.() === true;
    const values = n.items.slice(1).map((v): Expr => {
      const value = parseExpr(v, ctx);
      return expand && value.k === "var" && value.mf
        ? { k: "call", fn: "expand$", args: [value], pos: value.pos }
        : value;
    });
    // CLIPS reads the slot name as any expression: one that is no symbol is found when run.
    if (head.type === "atom" && head.kind === "symbol") return { name: head.text, values };
    return { name: "", nameExpr: parseExpr(head, ctx), values };
  });
}

/** `(modify-instance target (slot value…)…)`: a make-instance expression marked `modify`. */
function parseModifyInstance(list: SList, ctx: ParseContext): Expr {
  const target = list.items[1];
  if (target === undefined) {
    throw rulesParseError(list.pos, "an instance to modify", "')'", { construct: ctx.construct });
  }
  const name = parseExpr(target, ctx);
  const slots = parseSlotOverrides(list.items.slice(2), ctx);
  const byMessage = list.items[0]?.type === "atom" && list.items[0].text.startsWith("message-");
  return {
    k: "make-instance",
    modify: true,
    ...(byMessage ? { byMessage } : {}),
    name,
    cls: name,
    slots,
    pos: list.pos,
  };
}

/** `(initialize-instance target (slot value…)…)`: a make-instance expression marked `initialize`. */
function parseInitializeInstance(list: SList, ctx: ParseContext): Expr {
  const target = list.items[1];
  if (target === undefined) {
    throw rulesParseError(list.pos, "an instance to initialize", "')'", {
      construct: ctx.construct,
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for instance.",
    });
  }
  const name = parseExpr(target, ctx);
  const slots = parseSlotOverrides(list.items.slice(2), ctx);
  return { k: "make-instance", initialize: true, name, cls: name, slots, pos: list.pos };
}

/**
 * `(duplicate-instance target [to NAME] (slot value…)…)` and `message-duplicate-instance`: a
 * make-instance expression marked `duplicate`.
 */
function parseDuplicateInstance(list: SList, ctx: ParseContext): Expr {
  const target = list.items[1];
  if (target === undefined) {
    throw rulesParseError(list.pos, "an instance to duplicate", "')'", {
      construct: ctx.construct,
    });
  }
  const name = parseExpr(target, ctx);
  const toWord = list.items[2];
  const named = toWord?.type === "atom" && toWord.kind === "symbol" && toWord.text === "to";
  const toNode = named ? list.items[3] : undefined;
  if (named && toNode === undefined) {
    throw rulesParseError(list.pos, "the new instance's name after 'to'", "')'", {
      construct: ctx.construct,
    });
  }
  const to = toNode === undefined ? null : parseExpr(toNode, ctx);
  const slots = parseSlotOverrides(list.items.slice(named ? 4 : 2), ctx);
  const byMessage = list.items[0]?.type === "atom" && list.items[0].text.startsWith("message-");
  return {
    k: "make-instance",
    duplicate: { to },
    ...(byMessage ? { byMessage } : {}),
    name,
    cls: name,
    slots,
    pos: list.pos,
  };
}

function undefinedGlobal(node: SNode, ctx: ParseContext): Error {
  const name = node.type === "atom" ? node.text : "";
  return rulesLoadError(node.pos, `global variable ?*${name}* is not defined`, {
    construct: ctx.construct,
    clips: `[GLOBLPSR1] \nGlobal variable ?*${name}* was referenced, but is not defined.`,
    hint: `Define it first with (defglobal ?*${name}* = <value>).`,
  });
}

/** The actions of a loop body, after an optional `do`. */
function parseBody(items: SNode[], ctx: ParseContext): Expr[] {
  const first = items[0];
  const body =
    first?.type === "atom" && first.kind === "symbol" && first.text === "do"
      ? items.slice(1)
      : items;
  return body.map((n) => parseExpr(n, ctx));
}

/**
 * `(loop-for-count 3 …)`, `(loop-for-count (?i 5) …)`, `(loop-for-count (?i 2 5) do …)`, with
 * CLIPS's errors: [EXPRNPSR2] where a count is missing, [PRNTUTIL2] for a constant count that is
 * not an integer, a range of another shape or a word other than `do` after it.
 */
function parseLoop(list: SList, ctx: ParseContext): Expr {
  const syntax = (at: SNode): never => {
    throw rulesParseError(
      at.pos,
      "(loop-for-count [(?var [start] end) | end] [do] action…)",
      describe(at),
      {
        construct: ctx.construct,
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for loop-for-count function.",
        echoThrough: true,
      },
    );
  };
  // A constant count must be an integer (CLIPS's argument restriction 'i').
  const count = (n: SNode): Expr => {
    if (n.type === "atom" && n.kind !== "integer" && n.kind !== "sfvar" && n.kind !== "gvar") {
      syntax(n);
    }
    return parseExpr(n, ctx);
  };
  const spec = list.items[1];
  if (spec === undefined) {
    throw rulesParseError(list.pos, "a range after loop-for-count", "')'", {
      construct: ctx.construct,
      clips: NO_EXPRESSION,
      echoThrough: true,
    });
  }
  const after = list.items[2];
  if (after?.type === "atom" && !(after.kind === "symbol" && after.text === "do")) syntax(after);
  const one: Expr = { k: "const", v: 1 };
  const head = spec.type === "list" ? spec.items[0] : undefined;
  if (spec.type === "list" && head?.type === "atom" && head.kind === "sfvar") {
    const bounds = spec.items.slice(1);
    if (bounds.length === 0) {
      throw rulesParseError(spec.pos, "a range end", "')'", {
        construct: ctx.construct,
        clips: NO_EXPRESSION,
        echoThrough: true,
      });
    }
    if (bounds.length > 2) syntax(bounds[2] as SNode);
    const [a, b] = bounds.map(count) as [Expr, Expr | undefined];
    return {
      k: "loop",
      v: head.text,
      from: b ? a : one,
      to: b ?? a,
      body: parseBody(list.items.slice(2), ctx),
    };
  }
  if (spec.type === "list" && (head?.type !== "atom" || head.kind !== "symbol")) syntax(spec);
  return {
    k: "loop",
    v: null,
    from: one,
    to: count(spec),
    body: parseBody(list.items.slice(2), ctx),
  };
}

/**
 * `(progn$ (?v <multifield>) action…)`, `(progn$ <multifield> action…)` (no variable) or
 * `(foreach ?v <multifield> [do] action…)`, with CLIPS's errors: [EXPRNPSR2] where the
 * multifield is missing, [PRNTUTIL2] for another shape, [MULTIFUN2] for a body that binds the
 * loop variable.
 */
function parseForeach(list: SList, ctx: ParseContext): Expr {
  const fn = (list.items[0] as SAtom).text;
  const spec = list.items[1];
  // Where CLIPS met the `)`, its echo ends with the last token read, a space and the `)`.
  const syntax = (at: SNode | undefined): never => {
    const last = at ?? (list.items.at(-1) as SNode);
    throw rulesParseError(last.pos, "a loop variable and a multifield", describe(at), {
      construct: ctx.construct,
      clips: `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${fn}.`,
      ...(at?.type === "list" ? { echoOpen: true } : { echoThrough: true }),
      ...(at ? {} : { echoAfter: " )" }),
    });
  };
  const missing = (inside: SList): never => {
    const last = inside.items.at(-1) as SNode;
    throw rulesParseError(last.pos, "a multifield expression", "')'", {
      construct: ctx.construct,
      clips: "[EXPRNPSR2] Expected a constant, variable, or expression.",
      echoThrough: true,
      echoAfter: " )",
    });
  };
  let v: string;
  let m: SNode;
  let from: number;
  if (fn === "progn$") {
    if (spec === undefined) missing(list);
    if (spec?.type !== "list") syntax(spec);
    const [head, value, extra] = (spec as SList).items;
    if (head?.type === "atom" && head.kind === "sfvar") {
      if (value === undefined) missing(spec as SList);
      if (extra !== undefined) syntax(extra);
      v = head.text;
      m = value as SNode;
    } else {
      // No variable: the multifield is the expression itself.
      v = "";
      m = spec as SList;
    }
    from = 2;
  } else {
    if (spec?.type !== "atom" || spec.kind !== "sfvar") syntax(spec);
    if (list.items[2] === undefined) missing(list);
    v = (spec as SAtom).text;
    m = list.items[2] as SNode;
    from = 3;
  }
  const values = parseExpr(m, ctx);
  const body = parseBody(list.items.slice(from), ctx);
  if (v !== "" && bindsVariable(body, v)) {
    throw rulesParseError(list.pos, `a body that does not bind ?${v}`, `(bind ?${v} …)`, {
      construct: ctx.construct,
      clips: `[MULTIFUN2] Cannot rebind field variable in function ${fn}.`,
      echoThrough: true,
    });
  }
  return { k: "foreach", v, list: values, body };
}

/** True when a `(bind ?name …)` in `exprs` (at any depth) binds `name`. */
function bindsVariable(exprs: readonly unknown[], name: string): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (node === null || typeof node !== "object") return false;
    const e = node as Record<string, unknown>;
    if (e.k === "bind" && e.name === name && e.global !== true) return true;
    return Object.entries(e).some(([key, value]) => key !== "pos" && visit(value));
  };
  return exprs.some(visit);
}

/**
 * `(switch <expr> (case <expr> then action…)… [(default action…)])`, with CLIPS's errors:
 * [EXPRNPSR2] where an expression is missing, [PRNTUTIL2] for any other shape (a clause after
 * the default, a case without `then`).
 */
function parseSwitch(list: SList, ctx: ParseContext): Expr {
  const missing = (at: SNode): never => {
    throw rulesParseError(at.pos, "an expression", "')'", {
      construct: ctx.construct,
      clips: NO_EXPRESSION,
      echoThrough: true,
    });
  };
  const syntax = (at: SNode): never => {
    throw rulesParseError(
      at.pos,
      "(case <value> then action…) or (default action…)",
      describe(at),
      {
        construct: ctx.construct,
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for switch function.",
        echoThrough: true,
      },
    );
  };
  const subject = list.items[1];
  if (subject === undefined) missing(list);
  const cases: { test: Expr; body: Expr[] }[] = [];
  let otherwise: Expr[] | null = null;
  for (const item of list.items.slice(2)) {
    const head = item.type === "list" ? item.items[0] : undefined;
    if (item.type !== "list" || head?.type !== "atom" || otherwise !== null) syntax(item);
    const clause = item as SList;
    if ((head as SAtom).text === "case") {
      const test = clause.items[1];
      if (test === undefined) missing(clause);
      const then = clause.items[2];
      if (then?.type !== "atom" || then.text !== "then") syntax(then ?? clause);
      cases.push({
        test: parseExpr(test as SNode, ctx),
        body: clause.items.slice(3).map((n) => parseExpr(n, ctx)),
      });
    } else if ((head as SAtom).text === "default") {
      otherwise = clause.items.slice(1).map((n) => parseExpr(n, ctx));
    } else {
      syntax(clause);
    }
  }
  return {
    k: "switch",
    value: parseExpr(subject as SNode, ctx),
    cases,
    otherwise: otherwise ?? [],
  };
}

/** `(fn arg…)`: a call of a built-in or host function. */
function parseFunctionCall(list: SList, typed: string, ctx: ParseContext): Expr {
  if (!ctx.hasFunction(typed)) {
    throw rulesLoadError(list.pos, `unknown function '${typed}'`, {
      construct: ctx.construct,
      clips: `[EXPRNPSR3] Missing function declaration for ${typed}.`,
      hint: "Use a built-in function (docs/rules.md) or register it with engine.registerFunction().",
    });
  }
  // A deffunction or generic function of another module is called by its key.
  const fn = ctx.functionKey?.(typed) ?? typed;
  const items = list.items;
  const args: Expr[] = [];
  const expand = ctx.sequenceExpansion?.() === true;
  for (let k = 1; k < items.length; k++) {
    const arg = parseExpr(items[k] as SNode, ctx);
    if (expand && arg.k === "var" && arg.mf) noSequence(typed, list, ctx);
    args.push(
      expand && arg.k === "var" && arg.mf
        ? { k: "call", fn: "expand$", args: [arg], pos: arg.pos }
        : arg,
    );
  }
  // A call bound to a generic function is checked by its methods when it runs.
  if (ctx.overloaded?.(fn)) return { k: "call", fn, args, pos: list.pos, generic: true };
  // A deffunction's argument count is checked when the call is read, unless an expansion
  // makes it unknown (without sequence expansion a `$?x` is one argument).
  const counted = !args.some((a) => a.k === "call" && a.fn === "expand$");
  if (counted && ctx.deffunctionAccepts?.(fn, args.length) === false) {
    throw rulesLoadError(
      list.pos,
      `deffunction ${typed} does not take ${args.length} argument(s)`,
      {
        construct: ctx.construct,
        clips: ctx.deffunctionArityText?.(fn) ?? "",
      },
    );
  }
  return checkArgTypes({ k: "call", fn, args, pos: list.pos }, items, ctx);
}

/** The functions CLIPS will not give a `$?x` argument to when sequences expand. */
const NO_SEQUENCE: ReadonlySet<string> = new Set([
  "expand$",
  "return",
  "progn",
  "if",
  "while",
  "loop-for-count",
  "switch",
]);

/** [EXPRNPSR4] for a `$?x` argument of such a function, echoed through the call's `)`. */
function noSequence(fn: string, list: SList, ctx: ParseContext): void {
  if (!NO_SEQUENCE.has(fn)) return;
  // CLIPS checks once the call's `)` is read: the echo ends with its last argument and `)`.
  const last = list.items.at(-1) as SNode;
  throw rulesParseError(last.pos, `no $? argument for ${fn}`, "a sequence expansion", {
    construct: ctx.construct,
    clips: `[EXPRNPSR4] $ Sequence operator not a valid argument for ${fn}.`,
    echoThrough: true,
    echoAfter: ")",
  });
}

/** CLIPS's message for a form missing where an expression must come. */
const NO_EXPRESSION = "[EXPRNPSR2] Expected a constant, variable, or expression.";

function parseIf(list: SList, ctx: ParseContext): Expr {
  const items = list.items;
  const cond = items[1];
  if (cond?.type === "atom" && cond.kind === "mfvar" && ctx.sequenceExpansion?.() === true) {
    noSequence("if", list, ctx);
  }
  const thenKw = items[2];
  if (cond === undefined)
    throw rulesParseError(list.pos, "a condition", "')'", {
      construct: ctx.construct,
      clips: NO_EXPRESSION,
      echoThrough: true,
    });
  if (thenKw === undefined || thenKw.type !== "atom" || thenKw.text !== "then") {
    throw rulesParseError(thenKw?.pos ?? list.pos, "'then'", describe(thenKw), {
      construct: ctx.construct,
      hint: "Write (if <condition> then <action>… [else <action>…]).",
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for if function.",
      // Echoed through the token in place of `then`; at the `)` CLIPS's echo keeps the `)` on
      // its own line, which the through echo does not write yet, so none is printed.
      echoThrough: thenKw !== undefined,
    });
  }
  const thenPart: Expr[] = [];
  const elsePart: Expr[] = [];
  let target = thenPart;
  for (const n of items.slice(3)) {
    if (n.type === "atom" && n.kind === "symbol" && n.text === "else" && target === thenPart) {
      target = elsePart;
      continue;
    }
    target.push(parseExpr(n, ctx));
  }
  return { k: "if", cond: parseExpr(cond, ctx), thenDo: thenPart, elseDo: elsePart };
}

/** `(name expr…)` inside a template fact, modify or duplicate. */
export function parseSlotSpec(node: SNode, ctx: ParseContext): SlotSpec {
  if (node.type !== "list" || node.items[0]?.type !== "atom" || node.items[0].kind !== "symbol") {
    throw rulesParseError(node.pos, "a slot as (slot-name value…)", describe(node), {
      construct: ctx.construct,
    });
  }
  return {
    name: node.items[0].text,
    values: parseFieldExprs(node.items.slice(1), ctx),
    pos: node.pos,
  };
}

/**
 * A fact's field expressions. CLIPS still reads the old `=(expr)` form on the right-hand side:
 * an `=` symbol directly before a call is dropped, the call is the value.
 */
function parseFieldExprs(items: SNode[], ctx: ParseContext): Expr[] {
  const out: Expr[] = [];
  for (let i = 0; i < items.length; i++) {
    const n = items[i] as SNode;
    if (n.type === "atom" && n.kind === "symbol" && n.text === "=" && items[i + 1]?.type === "list")
      continue;
    if (n.type === "atom" && (n.kind === "and" || n.kind === "or" || n.kind === "not")) {
      // A constraint connective has no place in a fact being asserted.
      throw rulesParseError(n.pos, "a value", describe(n), {
        construct: ctx.construct,
        clips: RHS_PATTERNS,
      });
    }
    out.push(parseExpr(n, ctx));
  }
  return out;
}

const RHS_PATTERNS = "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for RHS patterns.";

/** The symbols CLIPS reads as conditional elements, never as a relation or deftemplate name. */
export const RESERVED_RELATIONS: ReadonlySet<string> = new Set([
  "and",
  "not",
  "or",
  "test",
  "logical",
  "exists",
  "forall",
  "object",
]);

/** CLIPS's [PATTERN1] for a reserved symbol used as a `relation` or `deftemplate` name. */
export function reservedName(
  at: SNode,
  what: "relation" | "deftemplate",
  ctx: ParseContext,
  echo: "echoThrough" | "echoOpen" | "echoWhole" = "echoThrough",
): KeelError {
  const name = at.type === "atom" ? at.text : "";
  const error = rulesParseError(at.pos, `a ${what} name other than ${name}`, `'${name}'`, {
    construct: ctx.construct,
    clips: `[PATTERN1] The symbol ${name} has special meaning\nand may not be used as a ${what} name.`,
  });
  Object.assign(error.details, { [echo]: true });
  return error;
}

/** A fact in `assert` or `deffacts`: ordered, or template when the relation names a deftemplate. */
export function parseFactSpec(node: SNode, ctx: ParseContext): FactSpec {
  if (node.type !== "list") {
    throw rulesParseError(node.pos, "a fact in parentheses", describe(node), {
      construct: ctx.construct,
      clips: RHS_PATTERNS,
      echoThrough: true,
    });
  }
  const head = node.items[0];
  // `=` opens a return-value call, never a relation name.
  if (head === undefined || head.type !== "atom" || head.kind !== "symbol" || head.text === "=") {
    throw rulesParseError(head?.pos ?? node.pos, "a relation name (a symbol)", describe(head), {
      construct: ctx.construct,
      clips:
        "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for first field of a RHS pattern.",
      echoThrough: true,
    });
  }
  if (RESERVED_RELATIONS.has(head.text)) throw reservedName(head, "relation", ctx);
  const template = ctx.template(head.text);
  if (template) {
    const slots = node.items.slice(1).map((n) => parseSlotSpec(n, ctx));
    const seen = new Set<string>();
    for (const [k, s] of slots.entries()) {
      if (seen.has(s.name)) throw slotGivenTwice(node.items[k + 1] as SNode, s.name, ctx);
      seen.add(s.name);
      const slot = template.slots[checkSlot(template, s.name, s.pos, ctx)] as SlotDef;
      const given = node.items[k + 1];
      const values = given?.type === "list" ? given.items.slice(1) : [];
      // `=(call)` is one value written as two items: the `=` and the call.
      const first = values[0];
      const firstWidth =
        first?.type === "atom" && first.text === "=" && values[1]?.type === "list" ? 2 : 1;
      const second = values[firstWidth];
      const callNode = values[firstWidth - 1];
      const call = callNode?.type === "list" ? callNode.items[0] : undefined;
      if (
        !slot.multi &&
        second === undefined &&
        call?.type === "atom" &&
        returnsMultifield(call.text)
      ) {
        // A call returning a multifield (create$, …) for a single slot: refused when read,
        // the echo running through the call's last token.
        const { last: end, closing } = lastToken(callNode as SNode);
        throw rulesLoadError(
          end.pos,
          `slot ${slot.name} of deftemplate ${template.name} takes one value`,
          {
            construct: ctx.construct,
            clips: singleFieldSlotMessage(slot.name),
            echoThrough: true,
            echoAfter: closing,
            hint: "Declare it as a multislot to store several values.",
          },
        );
      }
      if (!slot.multi && second !== undefined) {
        // CLIPS stops at the second value (its echo runs on into it without a space).
        // After a call CLIPS's echo ends with the call's `)`s instead.
        const { last: end, closing } = lastToken(values[firstWidth - 1] as SNode);
        throw rulesLoadError(
          end.pos,
          `slot ${slot.name} of deftemplate ${template.name} takes one value, not several`,
          {
            construct: ctx.construct,
            clips: singleFieldSlotMessage(slot.name),
            echoThrough: true,
            echoAfter:
              closing ||
              (second.type !== "atom"
                ? "("
                : second.kind === "string"
                  ? `"${second.text}"`
                  : second.text),
            hint: "Declare it as a multislot to store several values.",
          },
        );
      }
      // CLIPS's static constraint check of what the fact's slot is given, once it read the
      // slot's `)`: the echo ends with the slot's last token and that `)`.
      const broken = staticViolation(slot, s.values);
      if (broken !== null) {
        const { last, closing } = lastToken(node.items[k + 1] as SNode);
        throw rulesLoadError(last.pos, violationText(template.name, slot, broken.text), {
          construct: ctx.construct,
          clips: slotValueMessage(broken, "assert", slot.name),
          echoThrough: true,
          echoAfter: closing,
        });
      }
    }
    return { kind: "template", template, slots, pos: node.pos };
  }
  // CLIPS makes the implied deftemplate when it reads the fact (in the construct's module),
  // refused when another module's deftemplate of that name would then be seen twice.
  if (ctx.impliedConflict?.(head.text) === true) {
    throw rulesParseError(head.pos, "a relation no other module's deftemplate shadows", head.text, {
      construct: ctx.construct,
      clips: `[CSTRCPSR3] Cannot define implied deftemplate ${head.text} because of an import/export conflict.`,
      echoThrough: true,
    });
  }
  ctx.impliedKey?.(head.text);
  return {
    kind: "ordered",
    relation: head.text,
    fields: parseFieldExprs(node.items.slice(1), ctx),
    pos: node.pos,
  };
}

/** CLIPS's error for a slot a fact or pattern names twice, echoed through its second name. */
export function slotGivenTwice(slot: SNode, name: string, ctx: ParseContext): Error {
  const at = slot.type === "list" ? (slot.items[0] ?? slot) : slot;
  return rulesParseError(at.pos, `slot ${name} once`, "it a second time", {
    construct: ctx.construct,
    clips: `[PRNTUTIL5] The slot ${name} has already been parsed.`,
    echoThrough: true,
  });
}

/** Fails when `slot` is not a slot of `template`. */
export function checkSlot(
  template: Template,
  slot: string,
  pos: SList["pos"],
  ctx: ParseContext,
): number {
  const index = template.slotIndex.get(slot);
  if (index === undefined) {
    throw rulesLoadError(pos, `slot '${slot}' is not in deftemplate '${template.name}'`, {
      construct: ctx.construct,
      clips: `[TMPLTDEF1] Invalid slot ${slot} not defined in corresponding deftemplate ${template.name}.`,
      hint: `Its slots are: ${template.slots.map((s) => s.name).join(", ") || "(none)"}.`,
    });
  }
  return index;
}

/**
 * CLIPS's parse-time check of a call's arguments against the function's argument types
 * (function-types.ts): a constant, or a nested call whose return types, none of which the
 * argument may be, fails at load time. Variables are left to the rule's constraint check.
 * `items` are the call's list items (its arguments from index 1).
 */
function checkArgTypes(call: Expr & { k: "call" }, items: SNode[], ctx: ParseContext): Expr {
  // A sequence expansion makes the arguments unknown until the call runs.
  if (call.args.some((a) => a.k === "call" && a.fn === "expand$")) return call;
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] as Expr;
    const want = argKind(call.fn, i);
    if (want === null) continue;
    const got =
      arg.k === "const" ? [valueType(arg.v)] : arg.k === "call" ? returnTypes(arg.fn) : null;
    if (got === null || got.some((t) => want.types.has(t))) continue;
    // CLIPS counts the arguments before it looks at their types (a count alone is checked
    // when the call is compiled).
    const problem = arityProblem(call.fn, call.args.length);
    if (problem) {
      throw rulesLoadError(call.pos, problem.message, {
        construct: ctx.construct,
        clips: problem.clips,
      });
    }
    const node = items[i + 1];
    throw rulesLoadError(
      // The echo stops after the call's `)`: at an atom argument, or at the call itself.
      node?.type === "atom" ? node.pos : call.pos,
      `function ${call.fn} expected argument #${i + 1} to be of type ${want.name}, not ${describe(node)}`,
      {
        construct: ctx.construct,
        clips: `[ARGACCES5] Function ${call.fn} expected argument #${i + 1} to be of type ${want.name}`,
        ...(want.name === "integer or float"
          ? { hint: "Compare numbers with = > < …; compare symbols and strings with eq or neq." }
          : {}),
      },
    );
  }
  return call;
}

/** Splits `MODULE::name` (no prefix: the current module). */
export function splitModuleName(text: string, ctx: ParseContext): { module: string; name: string } {
  const at = text.indexOf("::");
  if (at > 0) return { module: text.slice(0, at), name: text.slice(at + 2) };
  return { module: ctx.currentModule ?? "MAIN", name: text };
}
