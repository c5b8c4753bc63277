/** Parsing of COOL's constructs and generic functions: defclass, defmessage-handler, definstances, defgeneric, defmethod. */

import { isKeelError } from "../core/index.js";
import type {
  ClassSlotAst,
  ClassSlotFacets,
  DefclassAst,
  DefinstancesAst,
  Expr,
  HandlerAst,
  SlotConstraintFacets,
} from "./ast.js";
import { rulesParseError } from "./errors.js";
import { skipComment, symbolAt } from "./parse-constructs.js";
import { type ClassExists, checkDefclass } from "./parse-defclass-check.js";
import { type ClassLookup, checkDefinstances } from "./parse-definstances-check.js";
import { type ParseContext, parseExpr, splitModuleName } from "./parse-expr.js";
import { checkHandlerHead } from "./parse-handler-head.js";
import { ppConstruct } from "./pp-constructs.js";
import { describe, type SList, type SNode } from "./reader.js";
import { checkBodyVariables } from "./rhs-variables.js";
import type { Value } from "./values.js";

const isSym = (n: SNode | undefined, text?: string): boolean =>
  n?.type === "atom" && n.kind === "symbol" && (text === undefined || n.text === text);

/** `(defclass NAME ["comment"] (is-a SUPER…) [(role …)] [(pattern-match …)] (slot …)… (message-handler …)…)` */
export function parseDefclass(
  list: SList,
  ctx: ParseContext,
  classExists?: ClassExists,
): DefclassAst {
  if (classExists) checkDefclass(list, ctx.currentModule ?? "MAIN", classExists);
  const name = splitModuleName(symbolAt(list, 1, "a class name", ctx).text, ctx).name;
  ctx.construct = `defclass ${name}`;
  let at = skipComment(list, 2);
  const isa = list.items[at];
  if (isa?.type !== "list" || !isSym(isa.items[0], "is-a") || isa.items.length < 2) {
    throw rulesParseError(isa?.pos ?? list.pos, "(is-a SUPERCLASS…)", describe(isa), {
      construct: ctx.construct,
      hint: "A class names its superclasses first: (defclass A (is-a USER) …).",
    });
  }
  const supers = isa.items.slice(1).map((n) => {
    if (n.type !== "atom" || n.kind !== "symbol")
      throw rulesParseError(n.pos, "a class name", describe(n), { construct: ctx.construct });
    return n.text;
  });
  at++;
  let abstract: boolean | null = null;
  let reactive: boolean | null = null;
  const slots: ClassSlotAst[] = [];
  for (const n of list.items.slice(at)) {
    const head = n.type === "list" ? n.items[0] : undefined;
    if (n.type !== "list" || head?.type !== "atom") {
      throw rulesParseError(n.pos, "a slot, role or pattern-match list", describe(n), {
        construct: ctx.construct,
      });
    }
    switch (head.text) {
      case "role":
        abstract = isSym(n.items[1], "abstract");
        break;
      case "pattern-match":
        reactive = !isSym(n.items[1], "non-reactive");
        break;
      case "message-handler":
        break;
      case "slot":
      case "single-slot":
      case "multislot":
        slots.push(parseClassSlot(n, head.text === "multislot", ctx, head.text !== "slot"));
        break;
      default:
        throw rulesParseError(
          head.pos,
          "slot, multislot, role, pattern-match or message-handler",
          describe(head),
          {
            construct: ctx.construct,
          },
        );
    }
  }
  return { name, supers, isaPos: isa.pos, abstract, reactive, slots, source: list.source };
}

function parseClassSlot(
  list: SList,
  multi: boolean,
  ctx: ParseContext,
  fieldGiven: boolean,
): ClassSlotAst {
  const given: string[] = fieldGiven ? ["field"] : [];
  const name = symbolAt(list, 1, "a slot name", ctx).text;
  let defaults: Expr[] = [];
  let dynamic = false;
  let required = false;
  let createAccessor: ClassSlotFacets["createAccessor"] = null;
  const facets: Mutable<ClassSlotFacets> = {
    visibility: "private",
    storage: "local",
    propagation: "inherit",
    source: "exclusive",
    reactive: true,
    accessMode: "read-write",
    createAccessor: null,
    overrideMessage: null,
    constraints: {
      types: null,
      allowed: [],
      allowedValues: [],
      allowedClasses: [],
      range: null,
      cardinality: null,
    },
    given: [],
  };
  const constraints: Mutable<SlotConstraintFacets> = {
    ...facets.constraints,
    allowed: [],
    allowedValues: [],
    allowedClasses: [],
  };
  const word = (n: SNode | undefined): string => (n?.type === "atom" ? n.text : "");
  for (const f of list.items.slice(2)) {
    const head = f.type === "list" ? f.items[0] : undefined;
    if (f.type !== "list" || head?.type !== "atom") {
      throw rulesParseError(
        f.pos,
        "a slot facet (default …), (create-accessor …), …",
        describe(f),
        {
          construct: ctx.construct,
        },
      );
    }
    const args = f.items.slice(1);
    given.push(head.text === "default-dynamic" ? "default" : head.text);
    switch (head.text) {
      case "default":
      case "default-dynamic": {
        const only = args[0];
        const special =
          args.length === 1 &&
          only?.type === "atom" &&
          only.kind === "sfvar" &&
          (only.text === "NONE" || only.text === "DERIVE");
        // A global is looked up when the default is computed ([GLOBLDEF1] then), as in CLIPS.
        const lenient = { ...ctx, hasGlobal: () => true };
        // `(default)` is the empty value (not a derived one).
        const empty: Expr = { k: "const", v: [] };
        defaults = special
          ? []
          : args.length === 0
            ? [empty]
            : args.map((a) => parseExpr(a, lenient));
        dynamic = head.text === "default-dynamic";
        required = special && only.text === "NONE";
        break;
      }
      case "create-accessor": {
        const t = word(args[0]);
        createAccessor =
          t === "read" ? "read" : t === "write" ? "write" : t === "NONE" ? "none" : "read-write";
        break;
      }
      case "access": {
        const t = word(args[0]);
        facets.accessMode =
          t === "read-only"
            ? "read-only"
            : t === "initialize-only"
              ? "initialize-only"
              : "read-write";
        break;
      }
      case "visibility":
        facets.visibility = word(args[0]) === "public" ? "public" : "private";
        break;
      case "storage":
        facets.storage = word(args[0]) === "shared" ? "shared" : "local";
        break;
      case "propagation":
        facets.propagation = word(args[0]) === "no-inherit" ? "no-inherit" : "inherit";
        break;
      case "source":
        facets.source = word(args[0]) === "composite" ? "composite" : "exclusive";
        break;
      case "pattern-match":
        facets.reactive = word(args[0]) !== "non-reactive";
        break;
      case "override-message":
        facets.overrideMessage = word(args[0]) || null;
        break;
      case "type":
        constraints.types = args.map(word);
        break;
      case "range":
      case "cardinality": {
        const ends: [string, string] = [word(args[0]), word(args[1])];
        if (head.text === "range") constraints.range = ends;
        else constraints.cardinality = ends;
        break;
      }
      default:
        // allowed-…: recorded for describe-class; none of the constraints is enforced.
        if (head.text.startsWith("allowed-")) {
          (constraints.allowed as string[]).push(head.text);
          for (const a of args) {
            if (a.type !== "atom" || a.kind === "sfvar" || a.kind === "mfvar") continue;
            if (head.text === "allowed-classes") {
              (constraints.allowedClasses as string[]).push(word(a));
            } else (constraints.allowedValues as Value[]).push(a.value);
          }
        }
        break;
    }
  }
  facets.constraints = constraints;
  facets.given = given;
  facets.createAccessor = createAccessor;
  let access = createAccessor ?? "read-write";
  // A read-only slot has no put- accessor, whatever create-accessor asks (CLIPS 6.30).
  if (facets.accessMode === "read-only")
    access = access === "read-write" ? "read" : access === "write" ? "none" : access;
  return { name, multi, defaults, dynamic, access, required, facets };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The parameters `(?a ?b [$?rest])` of a handler. */
function parseParams(
  node: SNode | undefined,
  ctx: ParseContext,
): { params: string[]; rest: string | null } {
  if (node?.type !== "list") {
    throw rulesParseError(
      node?.pos ?? { line: 0, column: 0 },
      "a parameter list (?a …)",
      describe(node),
      {
        construct: ctx.construct,
      },
    );
  }
  const params: string[] = [];
  let rest: string | null = null;
  // CLIPS's messages for a bad parameter, each echoed through the parameter.
  const fail = (p: SNode, message: string, clips: string): never => {
    throw rulesParseError(p.pos, "a parameter ?name", message, {
      construct: ctx.construct,
      clips,
      echoThrough: true,
    });
  };
  for (const p of node.items) {
    if (rest !== null) {
      fail(
        p,
        "a parameter after $?rest",
        "[PRCCODE8] No parameters allowed after wildcard parameter.",
      );
    }
    if (p.type !== "atom" || (p.kind !== "sfvar" && p.kind !== "mfvar")) {
      throw rulesParseError(p.pos, "a parameter ?name", describe(p), {
        construct: ctx.construct,
      });
    }
    if (p.text.includes(":")) {
      fail(
        p,
        `the slot reference ?${p.text}`,
        "[MSGPSR4] Illegal slot reference in parameter list.",
      );
    }
    // ?self is the handler's own first parameter: naming it again is a duplicate.
    if (p.text === "self" || params.includes(p.text)) {
      fail(p, `?${p.text} a second time`, "[PRCCODE7] Duplicate parameter names not allowed.");
    }
    if (p.kind === "mfvar") rest = p.text;
    else params.push(p.text);
  }
  return { params, rest };
}

const HANDLER_TYPES = new Set(["primary", "before", "after", "around"]);

/** `(defmessage-handler CLASS name [type] ["comment"] (?a…) action…)` */
export function parseHandler(
  list: SList,
  ctx: ParseContext,
  classExists?: (name: string) => boolean,
  handlersRunning?: (cls: string) => boolean,
): HandlerAst {
  if (classExists) {
    checkHandlerHead(list, ctx.currentModule ?? "MAIN", classExists, handlersRunning);
  }
  const cls = splitModuleName(symbolAt(list, 1, "a class name", ctx).text, ctx).name;
  const name = symbolAt(list, 2, "a message name", ctx).text;
  ctx.construct = `defmessage-handler ${cls} ${name}`;
  let at = 3;
  let type: HandlerAst["type"] = "primary";
  const t = list.items[3];
  if (t?.type === "atom" && t.kind === "symbol" && HANDLER_TYPES.has(t.text)) {
    type = t.text as HandlerAst["type"];
    at = 4;
  }
  at = skipComment(list, at);
  const plist = list.items[at];
  const { params, rest } = parseParams(plist, ctx);
  const body = list.items.slice(at + 1).map((n) => parseExpr(n, ctx));
  checkHandlerVariables(list, ctx, body, [...params, ...(rest === null ? [] : [rest]), "self"]);
  return {
    cls,
    name,
    type,
    params,
    rest,
    ...(plist ? { paramsPos: plist.pos } : {}),
    body,
    source: list.source,
  };
}

/** CLIPS refuses a body reading a variable no parameter or bind binds ([PRCCODE3]). */
function checkHandlerVariables(
  list: SList,
  ctx: ParseContext,
  body: readonly Expr[],
  bound: readonly string[],
): void {
  try {
    checkBodyVariables(body, bound, ctx.construct ?? "defmessage-handler", "message-handler", true);
  } catch (e) {
    // Found once the whole handler was read: the echo is all of it, its `)` on a line of its own.
    const whole = ppConstruct(list, ctx.currentModule ?? "MAIN");
    if (isKeelError(e) && whole !== null) {
      Object.assign(e.details, { echoText: `${whole.slice(0, -2)}\n   )` });
    }
    throw e;
  }
}

/** `(definstances name [active] ["comment"] (name of CLASS (slot v…)…)…)` */
export function parseDefinstances(
  list: SList,
  ctx: ParseContext,
  classOf?: ClassLookup,
): DefinstancesAst {
  if (classOf) checkDefinstances(list, ctx.currentModule ?? "MAIN", classOf);
  const name = symbolAt(list, 1, "a definstances name", ctx).text;
  ctx.construct = `definstances ${name}`;
  let at = 2;
  if (isSym(list.items[at], "active")) at++;
  at = skipComment(list, at);
  const instances = list.items.slice(at).map((n) => {
    if (n.type !== "list") {
      throw rulesParseError(n.pos, "(name of CLASS (slot value)…)", describe(n), {
        construct: ctx.construct,
      });
    }
    let k = 0;
    let iname: Expr | null = null;
    if (!isSym(n.items[0], "of")) {
      iname = parseExpr(n.items[0] as SNode, ctx);
      k = 1;
    }
    if (!isSym(n.items[k], "of") || !isSym(n.items[k + 1])) {
      throw rulesParseError(
        n.items[k]?.pos ?? n.pos,
        "'of' and a class name",
        describe(n.items[k]),
        {
          construct: ctx.construct,
        },
      );
    }
    const cls = (n.items[k + 1] as SNode & { text: string }).text;
    const slots = n.items.slice(k + 2).map((s) => {
      const head = s.type === "list" ? s.items[0] : undefined;
      if (s.type !== "list" || head?.type !== "atom") {
        throw rulesParseError(s.pos, "a slot override (slot value…)", describe(s), {
          construct: ctx.construct,
        });
      }
      return { name: head.text, values: s.items.slice(1).map((v) => parseExpr(v, ctx)) };
    });
    return { name: iname, cls, slots };
  });
  return { name, instances, source: list.source };
}
