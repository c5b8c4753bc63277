import { isKeelError } from "../core/index.js";
import type {
  CE,
  DeffactsAst,
  Expr,
  FieldConstraint,
  PatternCE,
  RuleAst,
  SlotDef,
  Template,
  Term,
} from "./ast.js";
import { rulesLoadError, rulesParseError } from "./errors.js";
import { OBJECT_RELATION } from "./object-template.js";
import {
  checkSlot,
  type ParseContext,
  parseExpr,
  parseFactSpec,
  RESERVED_RELATIONS,
  reservedName,
  slotGivenTwice,
  splitModuleName,
} from "./parse-expr.js";
import { tokenText } from "./pp-reader.js";
import { describe, type SAtom, type SList, type SNode, type SourcePos } from "./reader.js";
import { checkRhsSlots } from "./rhs-slot-check.js";
import { isConstraintAttribute, SlotConstraintReader } from "./slot-constraints.js";
import {
  checkDefaultConstants,
  checkSingleDefault,
  singleFieldSlotMessage,
} from "./template-defaults.js";
import { isMultifield, type Value } from "./values.js";

export function symbolAt(list: SList, index: number, expected: string, ctx: ParseContext): SAtom {
  const n = list.items[index];
  if (n === undefined || n.type !== "atom" || n.kind !== "symbol") {
    throw rulesParseError(n?.pos ?? list.pos, expected, describe(n), { construct: ctx.construct });
  }
  return n;
}

/** Skips an optional comment string after a construct name; returns the next index. */
export function skipComment(list: SList, index: number): number {
  const n = list.items[index];
  return n?.type === "atom" && n.kind === "string" ? index + 1 : index;
}

/** Slot attributes CLIPS 6.30 accepts that Keel does not build. */
const CLIPS_ONLY_ATTRIBUTES = new Set(["facet", "multifacet"]);

/** `(deftemplate name ["comment"] (slot s …) (multislot m …))` */
export function parseDeftemplate(list: SList, ctx: ParseContext): Template {
  const nameAtom = symbolAt(list, 1, "a deftemplate name", ctx);
  const { module, name } = splitModuleName(nameAtom.text, ctx);
  ctx.construct = `deftemplate ${name}`;
  if (RESERVED_RELATIONS.has(name)) {
    const error = reservedName({ ...nameAtom, text: name }, "deftemplate", ctx);
    // CLIPS checks once it read the token after the name (and comment): its echo ends there.
    const at = skipComment(list, 2);
    const comment = at > 2 ? ` ${tokenText(list.items[2] as SAtom)}` : "";
    const next = list.items[at];
    const tail = next === undefined ? ")" : `\n   ${next.type === "list" ? "(" : tokenText(next)}`;
    Object.assign(error.details, { echoText: `(deftemplate ${module}::${name}${comment}${tail}` });
    throw error;
  }
  const slots: SlotDef[] = [];
  const slotIndex = new Map<string, number>();
  // CLIPS's message for anything but (slot …), (multislot …) and their old names here; its
  // echo stops at the token that is not one.
  const notSlot = (at: SNode, found: string) =>
    rulesParseError(at.pos, "(slot …) or (multislot …)", found, {
      construct: ctx.construct,
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for deftemplate.",
      echoThrough: true,
    });
  for (const node of list.items.slice(skipComment(list, 2))) {
    if (node.type !== "list") throw notSlot(node, describe(node));
    const kind = node.items[0];
    if (kind === undefined) throw notSlot(node, "()");
    if (
      kind.type !== "atom" ||
      kind.kind !== "symbol" ||
      !["slot", "multislot", "field", "multifield"].includes(kind.text)
    ) {
      throw notSlot(kind, describe(kind));
    }
    const nameAtom = symbolAt(node, 1, "a slot name", ctx);
    const slotName = nameAtom.text;
    if (slotIndex.has(slotName)) {
      throw rulesParseError(nameAtom.pos, "a slot name not used yet", `'${slotName}'`, {
        construct: ctx.construct,
        clips: `[PRNTUTIL5] The slot ${slotName} has already been parsed.`,
        echoThrough: true,
      });
    }
    const single = kind.text === "slot" || kind.text === "field";
    const constraints = new SlotConstraintReader(!single, ctx.construct ?? "");
    let def: SlotDef["default"] = { kind: "derive", exprs: [] };
    let defaultAttr: SList | undefined;
    for (const attr of node.items.slice(2)) {
      if (attr.type !== "list") {
        throw rulesParseError(
          attr.pos,
          "a slot attribute such as (default …) or (type …)",
          describe(attr),
          {
            construct: ctx.construct,
          },
        );
      }
      const attrName = symbolAt(attr, 0, "a slot attribute name", ctx).text;
      if (attrName === "default" || attrName === "default-dynamic") {
        if (defaultAttr !== undefined) {
          throw rulesParseError(attr.items[0]?.pos, "one default attribute", "a second one", {
            construct: ctx.construct,
            clips: "[PRNTUTIL5] The default attribute has already been parsed.",
            echoThrough: true,
          });
        }
        defaultAttr = attr;
        def = parseDefaultAttribute(attr, attrName === "default-dynamic", single, ctx);
      } else if (isConstraintAttribute(attrName)) {
        constraints.readAttribute(attr);
      } else {
        throw rulesParseError(
          attr.items[0]?.pos,
          "default, default-dynamic, type or allowed-values",
          `'${attrName}'`,
          {
            construct: ctx.construct,
            // Names CLIPS knows and Keel does not build keep Keel's own error.
            ...(CLIPS_ONLY_ATTRIBUTES.has(attrName)
              ? {}
              : {
                  clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for slot attributes.",
                  echoThrough: true,
                }),
          },
        );
      }
    }
    constraints.checkConflicts(node);
    const { types, allowed, allowedTypes, range, cardinality, allowedClasses } = constraints.result;
    const ofClasses = ctx.ofClasses;
    const classAllowed =
      allowedClasses.length > 0 && ofClasses ? (v: Value) => ofClasses(v, allowedClasses) : null;
    if (defaultAttr !== undefined && (def.kind === "static" || def.kind === "dynamic")) {
      const checked = {
        name: slotName,
        multi: !single,
        types,
        allowed,
        allowedTypes,
        range,
        classAllowed,
      };
      checkDefaultConstants(
        node,
        { ...checked, ...(cardinality ? { cardinality } : {}) },
        def.exprs,
        def.kind === "dynamic",
        ctx.construct ?? "",
      );
    }
    slotIndex.set(slotName, slots.length);
    slots.push({
      name: slotName,
      multi: kind.text === "multislot" || kind.text === "multifield",
      default: def,
      types,
      allowed,
      range,
      ...(cardinality ? { cardinality } : {}),
      allowedTypes,
      ...(classAllowed ? { classAllowed } : {}),
    });
  }
  return { name, slots, slotIndex, source: list.source };
}

/**
 * A slot's `(default …)` or `(default-dynamic …)` as CLIPS's ParseDefault reads it: `?NONE` or
 * `?DERIVE` alone, no other variable but globals, and one single-field value for a single slot.
 */
function parseDefaultAttribute(
  attr: SList,
  dynamic: boolean,
  single: boolean,
  ctx: ParseContext,
): SlotDef["default"] {
  const args = attr.items.slice(1);
  let special: "none" | "derive" | null = null;
  for (const [k, a] of args.entries()) {
    const variable = a.type === "atom" && (a.kind === "sfvar" || a.kind === "mfvar");
    const named =
      a.type === "atom" &&
      ((a.kind === "sfvar" && (a.text === "NONE" || a.text === "DERIVE")) ||
        (a.kind === "symbol" && (a.text === "?NONE" || a.text === "?DERIVE")));
    if ((variable || named) && (!named || k > 0)) defaultSyntax(a, ctx);
    if (named) special = (a as SAtom).text.endsWith("NONE") ? "none" : "derive";
    else if (special !== null) defaultSyntax(a, ctx);
  }
  if (special !== null) return { kind: special, exprs: [] };
  if (single) checkSingleDefault(attr, args, ctx.construct ?? "deftemplate");
  const exprs = args.map((a) => parseExpr(a, ctx));
  if (dynamic || !ctx.evaluate) return { kind: dynamic ? "dynamic" : "static", exprs };
  // CLIPS evaluates a static default once, when it reads the attribute.
  let values: Value[];
  try {
    values = ctx.evaluate(exprs);
  } catch (e) {
    // The evaluation's own messages, then the echo through the attribute.
    if (isKeelError(e) && typeof e.details.clips === "string") {
      Object.assign(e.details, { line: attr.pos.line, column: attr.pos.column, echoThrough: true });
    }
    throw e;
  }
  const flat = single ? values : values.flatMap((v) => (isMultifield(v) ? v : [v]));
  return { kind: "static", exprs: flat.map((v) => ({ k: "const", v })) };
}

function defaultSyntax(at: SNode, ctx: ParseContext): never {
  throw rulesParseError(at.pos, "a value or an expression", describe(at), {
    construct: ctx.construct,
    clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for default attribute.",
    echoThrough: true,
  });
}

/** `(deffacts name ["comment"] fact…)` */
export function parseDeffacts(list: SList, ctx: ParseContext): DeffactsAst {
  const { name } = splitModuleName(symbolAt(list, 1, "a deffacts name", ctx).text, ctx);
  ctx.construct = `deffacts ${name}`;
  const facts = list.items.slice(skipComment(list, 2)).map((n) => parseFactSpec(n, ctx));
  // Checked once the deffacts is read: its facts are asserted where no variable is bound.
  const local = firstLocalVariable(facts);
  if (local !== null) {
    throw rulesLoadError(local, "a deffacts cannot read a local variable", {
      construct: ctx.construct,
      clips: "[PRNTUTIL6] Local variables can not be accessed by a deffacts construct.",
      echoWhole: true,
    });
  }
  return { name, facts, source: list.source };
}

/** Where the first `?x`/`$?x` in `node` is, or null (globals are fine). */
function firstLocalVariable(node: unknown): SourcePos | null {
  if (Array.isArray(node)) {
    for (const n of node) {
      const found = firstLocalVariable(n);
      if (found) return found;
    }
    return null;
  }
  if (node === null || typeof node !== "object") return null;
  const e = node as Record<string, unknown>;
  if (e.k === "var") return e.pos as SourcePos;
  for (const [key, value] of Object.entries(e)) {
    if (key === "pos" || key === "template") continue;
    const found = firstLocalVariable(value);
    if (found) return found;
  }
  return null;
}

/** `(defrule name ["comment"] [(declare (salience N))] CE… => action…)` */
export function parseDefrule(list: SList, ctx: ParseContext): RuleAst {
  const { module, name } = splitModuleName(symbolAt(list, 1, "a rule name", ctx).text, ctx);
  ctx.construct = `defrule ${name}`;
  let i = skipComment(list, 2);
  let salience = 0;
  let salienceExpr: Expr | undefined;
  let autoFocus = false;
  const ces: CE[] = [];
  let logical = 0;
  let misplacedLogical: Error | null = null;
  let arrow = -1;
  for (; i < list.items.length; i++) {
    const n = list.items[i] as SNode;
    if (n.type === "atom" && n.kind === "symbol" && n.text === "=>") {
      arrow = i;
      break;
    }
    if (n.type === "list" && n.items[0]?.type === "atom" && n.items[0].text === "declare") {
      ({ salience, autoFocus, salienceExpr } = parseDeclare(n, ctx));
      continue;
    }
    if (n.type === "atom" && n.kind === "sfvar") {
      ces.push(parseBoundPattern(list.items, i, ctx));
      i += 2;
      continue;
    }
    const orLogical = ces.length === logical ? logicalBranches(n, ctx) : null;
    if (orLogical) {
      // (or (logical A…) (logical B…)) first: each disjunct starts with its logical CEs.
      ces.push({
        type: "or",
        ces: orLogical.map((b) => ({ type: "and", ces: b, pos: n.pos })),
        pos: n.pos,
      });
      logical += (orLogical[0] as CE[]).length;
      continue;
    }
    if (n.type === "list" && n.items[0]?.type === "atom" && n.items[0].text === "logical") {
      // Logical CEs must come first; their CEs join the rule's as an and. CLIPS checks once
      // it has read the whole rule (a later syntax error wins), so the error waits till then.
      if (ces.length !== logical) {
        misplacedLogical ??= rulesLoadError(
          n.pos,
          "the logical CE must be the first conditional elements",
          {
            construct: ctx.construct,
            clips:
              logical === 0
                ? "[RULEPSR1] Logical CEs must be placed first in a rule"
                : "[RULEPSR2] Gaps may not exist between logical CEs",
            echoWhole: true,
            hint: "Move (logical …) before the other conditional elements.",
          },
        );
      }
      const sub = parseSubCEs(n, ctx, true);
      if (sub.length === 0) throw emptyCE(n, "logical", ctx);
      ces.push(...sub);
      logical += sub.length;
      continue;
    }
    ces.push(parseCE(n, ctx));
  }
  if (arrow < 0) {
    throw rulesParseError(
      list.pos,
      "'=>' between the conditions and the actions",
      "the end of the rule",
      {
        construct: ctx.construct,
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for defrule.",
        hint: "A rule reads (defrule name (pattern)… => (action)…).",
      },
    );
  }
  const actions = list.items.slice(arrow + 1).map((n) => parseExpr(n, ctx));
  if (misplacedLogical) throw misplacedLogical;
  checkRhsSlots(ces, actions, ctx.construct);
  return {
    name,
    salience,
    ces,
    actions,
    pos: list.pos,
    source: list.source,
    ...(module !== "MAIN" ? { module } : {}),
    ...(autoFocus ? { autoFocus } : {}),
    ...(logical ? { logical } : {}),
    ...(salienceExpr ? { salienceExpr } : {}),
  };
}

/**
 * The branches of `(or (logical …) (logical …)…)` when each is a logical CE of the same number
 * of CEs (CLIPS accepts logical CEs as the first CEs of each disjunct); null otherwise.
 */
function logicalBranches(n: SNode, ctx: ParseContext): CE[][] | null {
  if (n.type !== "list" || n.items[0]?.type !== "atom" || n.items[0].text !== "or") return null;
  const branches = n.items.slice(1);
  const isLogical = (b: SNode) =>
    b.type === "list" && b.items[0]?.type === "atom" && b.items[0].text === "logical";
  if (branches.length === 0 || !branches.every(isLogical)) return null;
  const parsed = branches.map((b) => parseSubCEs(b as SList, ctx, true));
  const size = (parsed[0] as CE[]).length;
  return parsed.every((p) => p.length === size) ? parsed : null;
}

function parseDeclare(
  list: SList,
  ctx: ParseContext,
): { salience: number; autoFocus: boolean; salienceExpr: Expr | undefined } {
  let salience = 0;
  let salienceExpr: Expr | undefined;
  let autoFocus = false;
  let salienceSeen = false;
  let autoFocusSeen = false;
  // CLIPS's DeclarationParse: each failure is a [PRNTUTIL2] naming the statement, echoed
  // through the token it had just read.
  const syntax = (at: SNode, statement: string, expected: string): never => {
    throw rulesParseError(at.pos, expected, describe(at), {
      construct: ctx.construct,
      clips: `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${statement}.`,
      echoThrough: true,
    });
  };
  if (list.items.length === 1) syntax(list, "declare statement", "(salience N)");
  for (let k = 1; k < list.items.length; k++) {
    const item = list.items[k] as SNode;
    if (item.type !== "list") syntax(item, "declare statement", "(salience N)");
    const head = (item as SList).items[0];
    if (head?.type !== "atom" || head.kind !== "symbol") {
      syntax(head ?? item, "declare statement", "(salience N)");
    }
    const { items } = item as SList;
    const key = (head as SAtom).text;
    const v = items[1];
    if ((key === "salience" && salienceSeen) || (key === "auto-focus" && autoFocusSeen)) {
      throw rulesParseError(head?.pos, `one ${key} declaration`, "a second one", {
        construct: ctx.construct,
        clips: `[PRNTUTIL5] The ${key} declaration has already been parsed.`,
        echoThrough: true,
      });
    }
    if (key === "salience" && v !== undefined && (v.type === "list" || v.kind === "gvar")) {
      // Dynamic salience: a global or a call, evaluated as set-salience-evaluation says. CLIPS
      // evaluates it when the rule is defined: an undefined global is [GLOBLDEF1] then, not here.
      salienceExpr = parseExpr(v, { ...ctx, hasGlobal: () => true });
    } else if (key === "salience") {
      if (v === undefined) {
        // CLIPS read the `)` as the value: its echo ends with it.
        throw rulesParseError((head as SAtom).pos, "an integer salience", describe(v), {
          construct: ctx.construct,
          clips: "[EXPRNPSR2] Expected a constant, variable, or expression.",
          echoThrough: true,
          echoAfter: " )",
        });
      }
      if (v.type === "atom" && v.kind === "sfvar") {
        // CLIPS evaluates the salience when the rule is defined: a rule's variable is unbound.
        throw rulesLoadError(v.pos, `salience ?${v.text} is a variable of no value`, {
          construct: ctx.construct,
          clips: `[EVALUATN1] Variable ${v.text} is unbound\n[PRNTUTIL8] This error occurred while evaluating the salience for ${ctx.construct ?? "defrule"}.`,
          echoThrough: true,
        });
      }
      if (v.type !== "atom" || v.kind !== "integer") {
        throw rulesParseError(v.pos, "an integer salience", describe(v), {
          construct: ctx.construct,
          clips: "[PRNTUTIL10] Salience value must be an integer value.",
          echoThrough: true,
        });
      }
      salience = v.value as number;
      if (salience < -10000 || salience > 10000) {
        throw rulesLoadError(v.pos, `salience ${salience} is outside -10000..10000`, {
          construct: ctx.construct,
          clips: "[PRNTUTIL9] Salience value out of range -10000 to 10000.",
          echoThrough: true,
        });
      }
    } else if (key === "auto-focus") {
      if (v?.type !== "atom" || v.kind !== "symbol" || (v.text !== "TRUE" && v.text !== "FALSE")) {
        syntax(v ?? item, "auto-focus statement", "TRUE or FALSE");
      }
      autoFocus = (v as SAtom).text === "TRUE";
    } else {
      syntax(head as SAtom, "declare statement", "(salience N) or (auto-focus TRUE|FALSE)");
    }
    if (key === "salience") salienceSeen = true;
    else autoFocusSeen = true;
    const extra = items[2];
    if (extra !== undefined) syntax(extra, "declare statement", "')'");
  }
  return { salience, autoFocus, salienceExpr };
}

/** A conditional element. */
export function parseCE(node: SNode, ctx: ParseContext): CE {
  if (node.type !== "list") {
    throw rulesParseError(
      node.pos,
      "a pattern or conditional element in parentheses",
      describe(node),
      {
        construct: ctx.construct,
      },
    );
  }
  const head = node.items[0];
  const kw =
    head?.type === "atom" && (head.kind === "symbol" || head.kind === "not") ? head.text : "";
  switch (kw) {
    case "test": {
      const e = node.items[1];
      if (e === undefined || node.items.length !== 2) {
        throw rulesParseError(node.pos, "one expression in (test …)", describe(node.items[2]), {
          construct: ctx.construct,
        });
      }
      return { type: "test", expr: parseExpr(e, ctx), pos: node.pos };
    }
    case "not": {
      const inner = parseSubCEs(node, ctx);
      if (inner.length === 0) throw emptyCE(node, "not", ctx);
      if (inner.length !== 1) {
        throw rulesParseError(
          node.pos,
          "exactly one conditional element in (not …)",
          `${inner.length}`,
          {
            construct: ctx.construct,
            hint: "Use (not (and …)) to negate several.",
          },
        );
      }
      return { type: "not", ce: inner[0] as CE, pos: node.pos };
    }
    case "and":
    case "or": {
      const ces = parseSubCEs(node, ctx, true);
      if (ces.length === 0) throw emptyCE(node, kw, ctx);
      return { type: kw, ces, pos: node.pos };
    }
    case "exists": {
      const ces = parseSubCEs(node, ctx);
      if (ces.length === 0) {
        throw rulesParseError(node.pos, "a conditional element in (exists …)", "none", {
          construct: ctx.construct,
          clips:
            "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for the exists conditional element.",
          echoThrough: true,
        });
      }
      return { type: "exists", ces, pos: node.pos };
    }
    case "forall": {
      const inner = parseSubCEs(node, ctx);
      const first = inner[0];
      if (first === undefined || inner.length < 2) {
        throw rulesParseError(
          node.pos,
          "at least two conditional elements in (forall …)",
          `${inner.length}`,
          {
            construct: ctx.construct,
            clips:
              "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for the forall conditional element.",
            echoThrough: true,
          },
        );
      }
      return { type: "forall", first, rest: inner.slice(1), pos: node.pos };
    }
    case "logical":
      throw rulesLoadError(
        head?.pos ?? node.pos,
        "a logical CE can only be among a rule's first CEs",
        {
          construct: ctx.construct,
          ...(negatedDepth > 0
            ? {
                clips: "[RULELHS1] The logical CE cannot be used within a not/exists/forall CE.",
                echoThrough: true,
              }
            : {}),
          hint: "Write (logical …) at the top of the rule's conditions, not inside another CE.",
        },
      );
    default:
      return parsePattern(node, ctx, null);
  }
}

/** CLIPS's error for `(and)`, `(or)`, `(not)` or `(logical)` holding no CE; echoed through it. */
function emptyCE(node: SList, kw: string, ctx: ParseContext): Error {
  // Through the keyword, then the `)` CLIPS read in place of a CE.
  return rulesParseError(
    node.items[0]?.pos ?? node.pos,
    `a conditional element in (${kw} …)`,
    "none",
    {
      construct: ctx.construct,
      clips: `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for the ${kw} conditional element.`,
      echoThrough: true,
      echoAfter: ")",
    },
  );
}

/** The slot map of every ordered pattern (it has none; read-only, so one map serves all). */
const NO_SLOTS: ReadonlyMap<number, FieldConstraint[]> = new Map();

/**
 * The conditional elements inside `(not …)`, `(and …)` and the like (after the keyword). Inside
 * `and`/`or` (`bind`), `?f <- (pattern)` binds a fact address as at the top level.
 */
function parseSubCEs(list: SList, ctx: ParseContext, bind = false): CE[] {
  const out: CE[] = [];
  // Without `bind` these are a not's, exists' or forall's CEs (where CLIPS refuses a logical).
  if (!bind) negatedDepth++;
  try {
    for (let k = 1; k < list.items.length; k++) {
      const n = list.items[k] as SNode;
      if (negatedDepth > 0 && n.type === "atom" && n.kind === "sfvar") {
        // Inside a not, exists or forall there is no fact to bind ([RULELHS2]).
        throw rulesParseError(n.pos, "a pattern", "a fact-address variable", {
          construct: ctx.construct,
          clips: "[RULELHS2] A pattern CE cannot be bound to a pattern-address within a not CE",
          echoThrough: true,
        });
      }
      if (bind && n.type === "atom" && n.kind === "sfvar") {
        out.push(parseBoundPattern(list.items, k, ctx));
        k += 2;
        continue;
      }
      out.push(parseCE(n, ctx));
    }
  } finally {
    if (!bind) negatedDepth--;
  }
  return out;
}

/** How many not/exists/forall CEs enclose the CE being parsed (parsing is synchronous). */
let negatedDepth = 0;

/** `?f <- (pattern)` starting at `items[i]` (the variable). */
function parseBoundPattern(items: SNode[], i: number, ctx: ParseContext): PatternCE {
  const n = items[i] as SNode;
  const arrowTok = items[i + 1];
  const pattern = items[i + 2];
  const arrowOk = arrowTok?.type === "atom" && arrowTok.text === "<-";
  if (!arrowOk || pattern?.type !== "list") {
    // CLIPS's echo stops at the token in the way: a list's `(`, or an atom.
    const at = arrowOk ? pattern : arrowTok;
    throw rulesParseError(
      at?.pos ?? n.pos,
      "'<-' and a pattern after a fact-address variable",
      describe(at),
      {
        construct: ctx.construct,
        hint: "Bind a fact with ?f <- (pattern).",
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for binding patterns.",
        ...(at?.type === "list" ? { echoOpen: true } : { echoThrough: at !== undefined }),
      },
    );
  }
  return parsePattern(pattern, ctx, (n as SAtom).text);
}

/** CLIPS's error for a pattern whose first field is not a relation name; the echo ends at `at`. */
function firstFieldError(at: SNode, ctx: ParseContext): Error {
  return rulesParseError(at.pos, "a relation name at the start of a pattern", describe(at), {
    construct: ctx.construct,
    clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for the first field of a pattern.",
    echoThrough: true,
  });
}

function parsePattern(list: SList, ctx: ParseContext, addressVar: string | null): PatternCE {
  const items = list.items;
  const head = items[0];
  if (head === undefined || head.type !== "atom" || head.kind !== "symbol") {
    throw firstFieldError(head ?? list, ctx);
  }
  // A connective after the relation name: CLIPS reads the first field as a constant only.
  const second = items[1];
  if (second?.type === "atom" && (second.kind === "and" || second.kind === "or")) {
    if (ctx.template(head.text) && head.text !== OBJECT_RELATION) {
      // A deftemplate's name: its parser reads the connective right after it (no space).
      throw rulesParseError(head.pos, "a slot after a deftemplate's name", describe(second), {
        construct: ctx.construct,
        clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for deftemplate patterns.",
        echoThrough: true,
        echoAfter: second.text,
      });
    }
    throw firstFieldError(second, ctx);
  }
  if (head.text === "=") {
    // `=` opens a return-value constraint; CLIPS refuses it as a pattern's first field.
    throw rulesParseError(head.pos, "a relation name at the start of a pattern", "'='", {
      construct: ctx.construct,
      clips:
        "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for the field field of a pattern.",
      echoThrough: true,
    });
  }
  const template = ctx.template(head.text) ?? null;
  if (!template) {
    if (head.text !== OBJECT_RELATION && ctx.impliedConflict?.(head.text) === true) {
      throw rulesParseError(
        head.pos,
        "a relation no other module's deftemplate shadows",
        head.text,
        {
          construct: ctx.construct,
          clips: `[CSTRCPSR3] Cannot define implied deftemplate ${head.text} because of an import/export conflict.`,
          echoThrough: true,
        },
      );
    }
    const fields = parseFieldSequence(items, 1, items.length, ctx);
    const relation =
      head.text === OBJECT_RELATION ? head.text : (ctx.impliedKey?.(head.text) ?? head.text);
    return patternCE(list, relation, template, addressVar, fields, NO_SLOTS);
  }
  const slots = new Map<number, FieldConstraint[]>();
  const classes = head.text === OBJECT_RELATION ? new ObjectClassCheck(ctx) : null;
  for (let k = 1; k < items.length; k++) {
    const s = items[k] as SNode;
    if (s.type !== "list" || s.items[0]?.type !== "atom" || s.items[0].kind !== "symbol") {
      throw rulesParseError(
        s.pos,
        `a slot constraint (slot-name constraint) for deftemplate ${template.name}`,
        describe(s),
        {
          construct: ctx.construct,
        },
      );
    }
    classes?.slot(s.items[0]);
    const index = checkSlot(template, s.items[0].text, s.pos, ctx);
    if (slots.has(index)) {
      throw classes
        ? objectSlotError(
            s.items[0],
            `${s.items[0].text} restricted once in an object pattern`,
            `[OBJRTBLD4] Multiple restrictions on attribute ${s.items[0].text} not allowed.`,
            ctx,
          )
        : slotGivenTwice(s, s.items[0].text, ctx);
    }
    const def = template.slots[index] as SlotDef;
    // Multifield terms are allowed here: CLIPS counts a single slot's fields once all are read.
    const fields = parseFieldSequence(s.items, 1, s.items.length, ctx);
    const objectError = classes ? objectRestrictionError(s, def, fields, ctx) : null;
    if (objectError) throw objectError;
    if (!def.multi && (fields.length !== 1 || fields[0]?.multi)) {
      // CLIPS reads the slot's fields up to its `)`, then counts them: none is a defrule syntax
      // error, several a deftemplate pattern's (its echo ends with the last), one multifield
      // [TMPLTDEF2] (its echo ends with the `)`).
      const last = s.items.at(-1) as SNode;
      const clips =
        fields.length === 0
          ? "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for defrule."
          : fields.length > 1
            ? "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for deftemplate patterns."
            : singleFieldSlotMessage(def.name);
      throw rulesParseError(
        fields.length > 0 ? last.pos : s.pos,
        `one single-field constraint for slot '${def.name}'`,
        `${fields.length} constraints`,
        {
          construct: ctx.construct,
          hint: "Only multislots take multifield constraints.",
          clips,
          echoThrough: true,
          ...(fields.length === 1 ? { echoAfter: ")" } : {}),
        },
      );
    }
    if (s.items[0].text === "is-a") classes?.isa(fields, s);
    slots.set(index, fields);
  }
  const ce = patternCE(list, head.text, template, addressVar, [], slots);
  return head.text === OBJECT_RELATION ? objectPattern(ce, slots, ctx) : ce;
}

/** CLIPS's object pattern restriction message for each of its built-in attributes. */
const OBJECT_RESTRICTIONS: Readonly<Record<string, string | undefined>> = {
  "is-a": "class restriction in object pattern",
  name: "name restriction in object pattern",
};

/**
 * An object pattern's single slot given several fields (CLIPS stops reading at the second:
 * the echo ends there), or its is-a given one multifield term: CLIPS's syntax error, worded
 * by the attribute. Null when the restriction is fine here.
 */
function objectRestrictionError(
  s: SList,
  def: SlotDef,
  fields: readonly FieldConstraint[],
  ctx: ParseContext,
): Error | null {
  if (def.multi) return null;
  const isa = def.name === "is-a";
  // The node the second field starts at (several fields), or an is-a's one multifield term.
  const from = fields.length > 1 ? fields[1] : isa && fields[0]?.multi ? fields[0] : undefined;
  const at = from && s.items.find((n) => n.pos === from.pos);
  if (at === undefined) return null;
  const what = OBJECT_RESTRICTIONS[def.name] ?? "object slot pattern";
  return objectSlotError(
    at,
    `one single-field restriction for ${def.name}`,
    `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${what}.`,
    ctx,
  );
}

/** An object pattern's slot error; CLIPS's echo ends with `at`. */
function objectSlotError(at: SNode, expected: string, clips: string, ctx: ParseContext): Error {
  return rulesParseError(at.pos, expected, describe(at), {
    construct: ctx.construct,
    clips,
    echoThrough: true,
  });
}

/**
 * An object pattern: `(is-a A B)` of constant class names becomes the class test (CLIPS's class
 * bitmap) rather than a slot test, each name the class the rule's module sees (`MOD::NAME`);
 * every other slot named is one the class must have.
 */
function objectPattern(
  ce: PatternCE,
  slots: Map<number, FieldConstraint[]>,
  ctx: ParseContext,
): PatternCE {
  const classes = constantClasses(slots.get(0)?.[0])?.map((c) => ctx.classKey?.(c) ?? c) ?? null;
  if (classes) slots.delete(0);
  const named = [...slots.keys()].filter((i) => i > 1).sort((a, b) => a - b);
  return { ...ce, object: { classes, slots: named } };
}

function isClassName(t: Term | undefined): boolean {
  return t?.kind === "lit" && !t.neg && typeof t.value === "string";
}

/** `(is-a A B)` of constant class names: the names; null for any other restriction. */
function constantClasses(isa: FieldConstraint | undefined): string[] | null {
  if (
    !isa ||
    isa.alts.length === 0 ||
    !isa.alts.every((a) => a.length === 1 && isClassName(a[0]))
  ) {
    return null;
  }
  return isa.alts.map((a) => (a[0] as { value: string }).value);
}

/**
 * CLIPS's check of an object pattern as it reads it (objrtbld.c ObjectLHSParse): the classes it
 * can match start as every reactive concrete class; `(is-a …)` must name defined classes
 * ([OBJRTBLD5]) some of which can have instances ([OBJRTBLD2]), and each slot must leave a class
 * having it ([OBJRTBLD2], the echo stopping at the slot's name).
 */
class ObjectClassCheck {
  private classes: string[] | null = null;
  private readonly slots: string[] = [];
  constructor(private readonly ctx: ParseContext) {}

  slot(name: SAtom): void {
    const count = this.ctx.objectCandidates;
    if (count === undefined || name.text === "is-a" || name.text === "name") return;
    if (count(this.classes, [...this.slots, name.text]) === 0) {
      throw rulesLoadError(
        name.pos,
        `no class can satisfy slot ${name.text} of the object pattern`,
        {
          construct: this.ctx.construct,
          clips: `[OBJRTBLD2] No objects of existing classes can satisfy ${name.text} restriction in object pattern.`,
          echoThrough: true,
        },
      );
    }
    this.slots.push(name.text);
  }

  isa(fields: readonly FieldConstraint[], list: SList): void {
    const count = this.ctx.objectCandidates;
    const classes = constantClasses(fields[0]);
    if (count === undefined || classes === null) return;
    const fail = (clips: string): never => {
      throw rulesLoadError(
        (list.items.at(-1) as SNode).pos,
        "no class can satisfy the object pattern",
        {
          construct: this.ctx.construct,
          clips,
          echoThrough: true,
          echoAfter: ")",
        },
      );
    };
    if (classes.some((c) => this.ctx.hasClass?.(c) === false)) {
      fail("[OBJRTBLD5] Undefined class in object pattern.");
    }
    if (count(classes, []) === 0) {
      fail(
        "[OBJRTBLD2] No objects of existing classes can satisfy is-a restriction in object pattern.",
      );
    }
    if (count(classes, this.slots) === 0) {
      fail("[OBJRTBLD1] No objects of existing classes can satisfy pattern.");
    }
    this.classes = classes;
  }
}

/** A pattern CE, every field written in one literal (one object shape for both kinds). */
function patternCE(
  list: SList,
  relation: string,
  template: Template | null,
  addressVar: string | null,
  fields: FieldConstraint[],
  slots: ReadonlyMap<number, FieldConstraint[]>,
): PatternCE {
  return {
    type: "pattern",
    // A deftemplate outside MAIN: its facts carry its module-qualified key.
    relation: template?.key ?? relation,
    template,
    addressVar,
    pos: list.pos,
    source: list.source,
    fields,
    slots,
  };
}

function isConnective(n: SNode | undefined, kind: "and" | "or"): boolean {
  return n?.type === "atom" && n.kind === kind;
}

/**
 * What {@link parseTerm} read besides the term: the index after it and whether it is a
 * multifield. One object, overwritten by each call, so reading a term allocates only the term.
 */
const termEnd = { next: 0, isMulti: false };

/** Splits `items[from..to)` (a pattern's items) into field constraints joined by & | ~. */
function parseFieldSequence(
  items: SNode[],
  from: number,
  to: number,
  ctx: ParseContext,
): FieldConstraint[] {
  const out: FieldConstraint[] = [];
  let i = from;
  while (i < to) {
    const pos = (items[i] as SNode).pos;
    const alts: Term[][] = [];
    let conj: Term[] = [];
    let multi = false;
    let wildOnly = false;
    for (;;) {
      const term = parseTerm(items, i, to, ctx);
      if (termEnd.isMulti) multi = true;
      if (term) conj.push(term);
      else wildOnly = true;
      i = termEnd.next;
      const at = i < to ? items[i] : undefined;
      if (isConnective(at, "and")) {
        i++;
        continue;
      }
      if (isConnective(at, "or")) {
        alts.push(conj);
        conj = [];
        i++;
        continue;
      }
      break;
    }
    alts.push(conj);
    const isWildcard = wildOnly && alts.length === 1 && conj.length === 0;
    out.push({ multi, alts: isWildcard ? [] : alts, pos });
  }
  return out;
}

/**
 * Reads the term at `items[i]` (`items` end at `to`): null for a wildcard. Sets
 * {@link termEnd} to the index after it and whether it is a multifield.
 */
function parseTerm(items: SNode[], i: number, to: number, ctx: ParseContext): Term | null {
  let neg = false;
  let n = i < to ? items[i] : undefined;
  if (n?.type === "atom" && n.kind === "not") {
    neg = true;
    i++;
    n = i < to ? items[i] : undefined;
  }
  if (n === undefined) {
    // A lone `~`: CLIPS read the `)` after it.
    const tilde = neg ? items[i - 1] : undefined;
    throw rulesParseError(tilde?.pos, "a constraint", "')'", {
      construct: ctx.construct,
      ...(tilde
        ? {
            clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for defrule.",
            echoThrough: true,
            echoAfter: ")",
          }
        : {}),
    });
  }
  if (n.type === "list") {
    throw rulesParseError(n.pos, "a constant, a variable, :(…) or =(…)", "a '(' list", {
      construct: ctx.construct,
      hint: "Write a predicate constraint as ?x&:(> ?x 1).",
      clips: "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for defrule.",
      echoOpen: true,
    });
  }
  termEnd.next = i + 1;
  termEnd.isMulti = false;
  switch (n.kind) {
    case "sfwild":
      return null;
    case "mfwild":
      termEnd.isMulti = true;
      return null;
    case "sfvar":
      return { kind: "var", neg, name: n.text, mf: false, pos: n.pos };
    case "mfvar":
      termEnd.isMulti = true;
      return { kind: "var", neg, name: n.text, mf: true, pos: n.pos };
    case "symbol": {
      const call = i + 1 < to ? items[i + 1] : undefined;
      if ((n.text === ":" || n.text === "=") && call?.type === "list") {
        const kind = n.text === ":" ? "pred" : "ret";
        // parseExpr may read terms of its own: set the end after it.
        const expr = parseExpr(call, ctx);
        termEnd.next = i + 2;
        termEnd.isMulti = false;
        return { kind, neg, expr };
      }
      return { kind: "lit", neg, value: n.value };
    }
    case "string":
    case "integer":
    case "float":
    case "instance":
      return { kind: "lit", neg, value: n.value };
    default:
      throw rulesParseError(n.pos, "a constant, a variable, :(…) or =(…)", describe(n), {
        construct: ctx.construct,
      });
  }
}
