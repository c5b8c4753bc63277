import { isKeelError, type KeelError } from "../core/index.js";
import type { Expr, FactSpec, SlotSpec, Template } from "./ast.js";
import { evaluationErrorSeen, noteEvaluationError, withClipsLine } from "./clips-messages.js";
import { BreakSignal, ReturnSignal } from "./control.js";
import { SLOT_FUNCTIONS } from "./cool-slot-functions.js";
import { DEPENDENCY_COMMANDS } from "./dependencies.js";
import { rulesLoadError, rulesRuntimeError } from "./errors.js";
import { stepIn, stepOut } from "./eval-depth.js";
import { typeError } from "./function-args.js";
import { arityProblem, BUILTINS, type RuleFunction } from "./functions.js";
import { GENERIC_COMMANDS } from "./generic-command-names.js";
import { HANDLER_COMMANDS, INTROSPECTION_COMMANDS } from "./introspect.js";
import { type RuleLimits, ruleLimitError } from "./limits.js";
import { logicalName } from "./logical-names.js";
import { FILE_FUNCTION_NAMES } from "./no-files.js";
import { RANDOM_COMMANDS } from "./random-numbers.js";
import type { SourcePos } from "./reader.js";
import type { Token } from "./rete/memory.js";
import { slotRefColon } from "./rhs-variables.js";
import { isRouterName, unknownRouterMessage } from "./routers.js";
import { SWITCH_COMMANDS } from "./switches.js";
import { TEMPLATE_FUNCTIONS } from "./template-functions.js";
import {
  type Atom,
  FALSE,
  formatValue,
  isInteger,
  isMultifield,
  isNumber,
  isSymbol,
  type Value,
  VOID,
  valuesEqual,
} from "./values.js";

/** What running an expression can do to the engine (the engine implements it). */
export interface EvalHost {
  /** Host-registered functions. */
  hostFunction(name: string): RuleFunction | undefined;
  assertFact(spec: ResolvedFact): Value;
  /** `index`: the argument's position, for CLIPS's message (1 when left out). */
  retract(target: Value, index?: number): void;
  /** Runs `run` with the matching of changed instances put off until it ends. */
  delayObjectMatching(run: () => Value): Value;
  modify(target: Value, changes: SlotChange[], duplicate: boolean): Value;
  print(router: string, text: string): void;
  /** Set when a failed pattern test is reported and treated as false (CLIPS), not thrown. */
  readonly matchError?: ((error: KeelError) => void) | undefined;
  halt(): void;
  /** A defglobal's value (the parser has checked it is defined). */
  global(name: string): Value;
  setGlobal(name: string, value: Value): void;
  /** `(bind ?*name*)`: the global takes its initial value again, which is returned. */
  resetGlobal(name: string): Value;
  /** Top-level commands (reset, clear, run, facts, agenda, exit); null when `name` is not one. */
  command(name: string, args: Value[]): Value | null;
  /** COOL, generic functions and the query functions' access to facts and instances. */
  readonly objects: ObjectOps;
  /** The engine's bounds: loops count their iterations against `maxLoopIterations`. */
  readonly limits: RuleLimits;
  /** RULES_LIMIT when the current run or command is past its wall time (loops call it). */
  checkDeadline(): void;
}

/** One `(slot value…)` of make-instance and its kin, evaluated. */
export interface SlotOverride {
  readonly name: string;
  readonly values: Value[];
  /** Its name was an expression whose value is no symbol. */
  readonly invalid?: boolean;
}

/** What COOL's functions and the fact-set and instance-set queries ask the engine. */
export interface ObjectOps {
  /** `?x:slot`: a slot of an instance (name or address) or of a template fact. */
  slotOf(target: Value, slot: string): Value;
  /** `(bind ?self:slot value)`. */
  setSlotOf(target: Value, slot: string, value: Value): Value;
  /** An override whose name evaluated to no symbol is `invalid` ([INSMNGR9]). */
  makeInstance(
    name: Value | null,
    cls: Value,
    slots: readonly SlotOverride[] | (() => readonly SlotOverride[]),
  ): Value;
  /** `(modify-instance target (slot value…)…)`: TRUE, or FALSE when there is no such instance. */
  modifyInstance(target: Value, slots: { name: string; values: Value[] }[]): Value;
  /** `message-modify-instance`: each slot put by its put- message. */
  messageModifyInstance(target: Value, slots: { name: string; values: Value[] }[]): Value;
  /** `(initialize-instance target (slot value…)…)`: the instance's name. */
  initializeInstance(
    target: Value,
    slots: readonly SlotOverride[] | (() => readonly SlotOverride[]),
  ): Value;
  /** `(duplicate-instance target [to NAME] (slot value…)…)`, by put- messages with `byMessage`. */
  duplicateInstance(
    target: Value,
    to: Value | null,
    slots: { name: string; values: Value[] }[],
    byMessage?: boolean,
  ): Value;
  /**
   * The facts of the templates (`facts`) or the instances of the classes named, in query order;
   * `fn`, the query function, names it in CLIPS's message for a bad name.
   */
  candidates(facts: boolean, among: Value[], fn: string): Value[];
  /** Whether a fact or instance a query visits still exists. */
  exists(v: Value): boolean;
  /** {@link OBJECT_CALLS}; null when `name` is not one. */
  call(name: string, args: Value[]): Value | null;
}

/** The COOL and generic-function functions the evaluator hands to {@link ObjectOps.call}. */
export const OBJECT_CALLS: ReadonlySet<string> = new Set([
  "send",
  "call-next-handler",
  "override-next-handler",
  "next-handlerp",
  "instance-name",
  "instance-address",
  "instancep",
  "instance-namep",
  "instance-addressp",
  "instance-existp",
  "class",
  "unmake-instance",
  "delete-instance",
  "symbol-to-instance-name",
  "instance-name-to-symbol",
  "class-existp",
  "subclassp",
  "superclassp",
  "class-superclasses",
  "class-subclasses",
  "class-slots",
  "class-abstractp",
  "class-reactivep",
  "slot-existp",
  "dynamic-get",
  "dynamic-put",
  "instances",
  "ppinstance",
  "gensym",
  "gensym*",
  "setgen",
  "init-slots",
  "undefmessage-handler",
  "describe-class",
  "browse-classes",
  "preview-send",
  "get-class-defaults-mode",
  "set-class-defaults-mode",
  "call-next-method",
  "override-next-method",
  "next-methodp",
  ...SLOT_FUNCTIONS,
]);

/** A slot change of modify or duplicate, before its name is checked. */
export interface SlotChange {
  name: string;
  values: Value[];
}

/** A fact with its values computed, ready to assert. */
export type ResolvedFact =
  | { kind: "ordered"; relation: string; fields: Atom[] }
  | { kind: "template"; template: Template; slots: Map<number, Value> };

/** The bindings an expression can see. */
export interface Frame {
  /** The token whose matches hold the LHS variables, or null. */
  tok: Token | null;
  /** The pattern's local bindings (inside a pattern or a join test), or null. */
  local: readonly Value[] | null;
  /** Variables bound on the right-hand side with `bind`. */
  rhs: Map<string, Value> | null;
  host: EvalHost;
}

export type Compiled = (f: Frame) => Value;

/** Resolves a variable name at compile time to a reader, or null when unbound. */
export type Resolver = (name: string) => Compiled | null;

export const COMMANDS = new Set([
  "reset",
  "clear",
  "run",
  "facts",
  "agenda",
  "exit",
  "halt",
  "retract",
  "printout",
  "read",
  "readline",
  "read-number",
  "format",
  "fact-index",
  "fact-relation",
  "fact-existp",
  "fact-slot-value",
  "fact-slot-names",
  "get-fact-list",
  "focus",
  "pop-focus",
  "get-focus",
  "get-focus-stack",
  "clear-focus-stack",
  "list-focus-stack",
  "get-current-module",
  "set-current-module",
  "set-strategy",
  "set-fact-duplication",
  "get-fact-duplication",
  "get-strategy",
  "watch",
  "unwatch",
  "list-watch-items",
  "eval",
  "sort",
  "expand$",
  "check-syntax",
  ...DEPENDENCY_COMMANDS,
  "ppfact",
  ...TEMPLATE_FUNCTIONS.keys(),
  "build",
  "assert-string",
  "set-salience-evaluation",
  "get-salience-evaluation",
  "refresh-agenda",
  "matches",
  "refresh",
  "set-break",
  "remove-break",
  "show-breaks",
  "undefrule",
  "undeffunction",
  "undefglobal",
  "undeffacts",
  "undefclass",
  "undefinstances",
  "undeftemplate",
  "list-defrules",
  "list-deftemplates",
  "list-deffacts",
  "list-deffunctions",
  "list-defglobals",
  "list-defmodules",
  "list-defclasses",
  "list-definstances",
  "list-defgenerics",
  ...INTROSPECTION_COMMANDS,
  ...GENERIC_COMMANDS,
  ...HANDLER_COMMANDS,
  ...SWITCH_COMMANDS,
  ...RANDOM_COMMANDS,
  ...FILE_FUNCTION_NAMES,
  "conserve-mem",
  "release-mem",
]);

/** Names the evaluator knows besides BUILTINS: the special forms and engine commands. */
export function isKnownFunction(name: string): boolean {
  return (
    BUILTINS.has(name) ||
    COMMANDS.has(name) ||
    OBJECT_CALLS.has(name) ||
    name === "and" ||
    name === "or" ||
    name === "progn" ||
    name === "object-pattern-match-delay" ||
    name === "return" ||
    name === "break"
  );
}

export interface CompileOptions {
  resolve: Resolver;
  /** On the right-hand side, `bind` creates variables; elsewhere it is refused. */
  rhs: boolean;
  /** For messages. */
  construct?: string;
  /**
   * What [PRCCODE5] names when a variable is unbound: `generic function f method #1`,
   * `message-handler m primary in class C`.
   */
  procedure?: string;
  /**
   * In a message-handler: how `?self:slot` reaches a slot (checked against the handler's class
   * when the handler is read; `write` for `bind`, whose value expressions `values` are).
   */
  selfSlot?: (
    slot: string,
    write: boolean,
    pos: SourcePos,
    values?: readonly Expr[],
  ) => SelfSlotAccess;
}

/** A message-handler's static reference to one slot of its class (`?self:slot`). */
export interface SelfSlotAccess {
  get(self: Value): Value;
  set(self: Value, value: Value): Value;
}

/** Symbols printout prints as characters (a Map: a symbol such as `constructor` is not one). */
const CHAR_ROUTERS: ReadonlyMap<string, string> = new Map([
  ["crlf", "\n"],
  ["tab", "\t"],
  ["vtab", "\v"],
  ["ff", "\f"],
]);

/** Compiles an expression into a closure. Unbound variables fail here, at load time. */
export function compileExpr(e: Expr, opts: CompileOptions): Compiled {
  switch (e.k) {
    case "const": {
      const v = e.v;
      return () => v;
    }
    case "var": {
      const r = opts.resolve(e.name);
      if (r) return r;
      const colon = slotRefColon(e.name);
      if (colon > 0 && !e.mf) {
        const base = compileExpr({ ...e, name: e.name.slice(0, colon) }, opts);
        const slot = e.name.slice(colon + 1);
        if (opts.selfSlot && e.name.startsWith("self:")) {
          const access = opts.selfSlot(slot, false, e.pos);
          return (f) => access.get(base(f));
        }
        return (f) => f.host.objects.slotOf(base(f), slot);
      }
      if (opts.rhs) {
        const name = e.name;
        // In a deffunction CLIPS names the deffunction ([PRCCODE5]).
        const procedure = opts.construct?.startsWith("deffunction ")
          ? opts.construct
          : opts.procedure;
        // CLIPS ends the line with a period except after a message handler's name.
        const stop = procedure?.startsWith("message-handler ") ? "" : ".";
        // A rule's action reading a variable before its bind: CLIPS names no construct.
        const text =
          procedure !== undefined
            ? `[PRCCODE5] Variable ${name} unbound in ${procedure}${stop}`
            : opts.construct?.startsWith("defrule ")
              ? `[PRCCODE5] Variable ${name} unbound.`
              : `[EVALUATN1] Variable ${name} is unbound`;
        return (f) => {
          const v = f.rhs?.get(name);
          if (v !== undefined) return v;
          const error = rulesRuntimeError(`variable ?${name} is not bound`, { clips: text });
          const report = f.host.matchError;
          if (!report) throw error;
          // CLIPS prints this, reads the variable as FALSE and finishes the enclosing call (which
          // usually reports the next error); then the command halts.
          f.host.print("t", `${text}\n`);
          noteEvaluationError();
          report(error);
          return FALSE;
        };
      }
      throw unbound(e.name, e.pos, opts);
    }
    case "gvar": {
      const name = e.name;
      return (f) => f.host.global(name);
    }
    case "bind": {
      if (e.global) {
        const parts = e.value.map((x) => compileExpr(x, opts));
        const name = e.name;
        if (parts.length === 0) return (f) => f.host.resetGlobal(name);
        return (f) => {
          const v = slotValue(parts.map((p) => p(f)));
          f.host.setGlobal(name, v);
          return v;
        };
      }
      const colon = slotRefColon(e.name);
      if (colon > 0) {
        const base = compileExpr(
          { k: "var", name: e.name.slice(0, colon), mf: false, pos: e.pos },
          opts,
        );
        const slot = e.name.slice(colon + 1);
        if (opts.selfSlot && e.name.startsWith("self:")) {
          const access = opts.selfSlot(slot, true, e.pos, e.value);
          const values = e.value.map((x) => compileExpr(x, opts));
          return (f) => access.set(base(f), slotValue(values.map((p) => p(f))));
        }
        const parts = e.value.map((x) => compileExpr(x, opts));
        return (f) => f.host.objects.setSlotOf(base(f), slot, slotValue(parts.map((p) => p(f))));
      }
      if (opts.selfSlot && e.name === "self") {
        throw rulesLoadError(e.pos, "a message-handler cannot bind ?self", {
          construct: opts.construct,
          clips: "[MSGPSR5] Active instance parameter cannot be changed.",
          echoWhole: true,
        });
      }
      if (!opts.rhs)
        throw rulesLoadError(e.pos, "bind is only allowed on the right-hand side of a rule", {
          construct: opts.construct,
        });
      const parts = e.value.map((x) => compileExpr(x, opts));
      const name = e.name;
      // `(bind ?x)` with no value unbinds the variable, as CLIPS does.
      if (parts.length === 0) {
        return (f) => {
          f.rhs?.delete(name);
          return FALSE;
        };
      }
      return (f) => {
        const vals = parts.map((p) => p(f));
        const v: Value =
          vals.length === 1 && !isMultifield(vals[0] as Value)
            ? (vals[0] as Value)
            : flattenAll(vals);
        if (!f.rhs) f.rhs = new Map();
        f.rhs.set(name, v);
        return v;
      };
    }
    case "if": {
      const cond = compileExpr(e.cond, opts);
      const thenPart = compileBody(e.thenDo, opts);
      const elsePart = compileBody(e.elseDo, opts);
      return (f) => (cond(f) !== FALSE ? thenPart(f) : elsePart(f));
    }
    case "while": {
      const cond = compileExpr(e.cond, opts);
      const body = compileBody(e.body, opts);
      return (f) => {
        const max = f.host.limits.maxLoopIterations;
        let n = 0;
        try {
          while (cond(f) !== FALSE) {
            if (++n > max) throw ruleLimitError("maxLoopIterations", max, undefined, "while");
            // The clock is read every 1024 iterations: a loop of cheap bodies stays cheap.
            if ((n & 1023) === 0) f.host.checkDeadline();
            body(f);
            // An error reported and gone on from (an unbound variable) halts the loop, as
            // CLIPS's HaltExecution does; the flag stays set for what encloses it.
            if (evaluationErrorSeen()) break;
          }
        } catch (signal) {
          if (!(signal instanceof BreakSignal)) throw signal;
        }
        return FALSE;
      };
    }
    case "loop":
      return compileLoop(e, opts);
    case "foreach":
      return compileForeach(e, opts);
    case "switch": {
      const value = compileExpr(e.value, opts);
      const cases = e.cases.map((c) => ({
        test: compileExpr(c.test, opts),
        body: compileBody(c.body, opts),
      }));
      const otherwise = compileBody(e.otherwise, opts);
      return (f) => {
        const v = value(f);
        for (const c of cases) if (valuesEqual(c.test(f), v)) return c.body(f);
        return otherwise(f);
      };
    }
    case "assert": {
      const facts = e.facts.map((spec) => compileFactSpec(spec, opts));
      return (f) => {
        let last: Value = FALSE;
        for (const make of facts) {
          last = f.host.assertFact(make(f));
          // CLIPS asserts the fact built up to a field that failed to evaluate, then stops.
          if (evaluationErrorSeen()) break;
        }
        return last;
      };
    }
    case "modify":
    case "duplicate": {
      const target = compileExpr(e.target, opts);
      const slots = compileSlotChanges(e.slots, opts);
      const dup = e.k === "duplicate";
      return (f) => f.host.modify(target(f), slots(f), dup);
    }
    case "call":
      return compileCall(e, opts);
    case "make-instance": {
      const name = e.name ? compileExpr(e.name, opts) : null;
      const cls = compileExpr(e.cls, opts);
      const slots = e.slots.map((s) => {
        const nameOf = s.nameExpr ? compileExpr(s.nameExpr, opts) : null;
        const slotName = (f: Frame): { name: string; invalid?: boolean } => {
          if (nameOf === null) return { name: s.name };
          const v = nameOf(f);
          return isSymbol(v) ? { name: v } : { name: formatValue(v), invalid: true };
        };
        // `$?x` (expand$) passes the multifield's fields as separate put- arguments.
        const parts = s.values.map((v) => {
          const spread = isExpansion(v) && v.args.length === 1;
          return { spread, value: compileExpr(spread ? (v.args[0] as Expr) : v, opts) };
        });
        const values = (f: Frame): Value[] => {
          const out: Value[] = [];
          for (const p of parts) {
            const v = p.value(f);
            if (p.spread && Array.isArray(v)) out.push(...v);
            else out.push(v);
          }
          return out;
        };
        return { slotName, values };
      });
      const evaluated = (f: Frame): SlotOverride[] =>
        slots.map((s) => ({ ...s.slotName(f), values: s.values(f) }));
      const to = e.duplicate?.to ? compileExpr(e.duplicate.to, opts) : null;
      if (e.duplicate) {
        const byMessage = e.byMessage === true;
        return (f) =>
          f.host.objects.duplicateInstance(cls(f), to ? to(f) : null, evaluated(f), byMessage);
      }
      if (e.initialize) {
        return (f) => f.host.objects.initializeInstance(cls(f), evaluated(f));
      }
      if (e.modify) {
        if (e.byMessage) {
          return (f) => f.host.objects.messageModifyInstance(cls(f), evaluated(f));
        }
        return (f) => f.host.objects.modifyInstance(cls(f), evaluated(f));
      }
      return (f) =>
        f.host.objects.makeInstance(name ? name(f) : null, cls(f), () =>
          slots.map((s) => {
            const slot = s.slotName(f);
            // CLIPS evaluates an override as the arguments of its put- message: one level
            // deeper (its ED in traces).
            stepIn();
            try {
              return { ...slot, values: s.values(f) };
            } catch (e) {
              throw withClipsLine(
                e,
                `[PRCCODE6] This error occurred while evaluating arguments for the message put-${slot.name}.`,
              );
            } finally {
              stepOut();
            }
          }),
        );
    }
    case "query":
      return compileQuery(e, opts);
  }
}

/**
 * The fact-set and instance-set queries: every combination of one fact (or instance) per
 * variable, the first variable varying slowest, as CLIPS's query.c and factqury.c visit them.
 */
function compileQuery(e: Expr & { k: "query" }, opts: CompileOptions): Compiled {
  const facts = e.fn.includes("fact");
  const vars = e.vars.map((v) => ({
    name: v.name,
    among: v.among.map((a) => compileExpr(a, opts)),
  }));
  const query = compileExpr(e.query, opts);
  const body = compileBody(e.body, opts);
  const fn = e.fn.replace(/-facts?$|-instances?$|-factp$|-instancep$/, "");
  return (f) => {
    const lists = vars.map((v) =>
      f.host.objects.candidates(
        facts,
        v.among.map((a) => a(f)),
        e.fn,
      ),
    );
    const saved = vars.map((v) => f.rhs?.get(v.name));
    const found: Value[][] = [];
    let last: Value = FALSE;
    const tuple: Value[] = [];
    const collectAll = fn === "find-all" || fn === "delayed-do-for-all";
    const runBody = fn === "do-for" || fn === "do-for-all";
    let stop = false;
    const visit = (i: number): void => {
      if (stop) return;
      if (i === vars.length) {
        if (query(f) === FALSE) return;
        if (runBody) last = body(f);
        else found.push([...tuple]);
        if (!collectAll && fn !== "do-for-all") stop = true;
        return;
      }
      for (const c of lists[i] as Value[]) {
        if (!f.host.objects.exists(c)) continue;
        tuple[i] = c;
        setVar(f, (vars[i] as { name: string }).name, c);
        visit(i + 1);
        if (stop) return;
      }
    };
    try {
      visit(0);
      if (fn === "delayed-do-for-all") {
        for (const t of found) {
          for (let i = 0; i < t.length; i++)
            setVar(f, (vars[i] as { name: string }).name, t[i] as Value);
          last = body(f);
        }
      }
    } catch (signal) {
      // A break in a query's action ends the query, not the loop around it (CLIPS's query.c).
      if (!(signal instanceof BreakSignal)) throw signal;
    } finally {
      vars.forEach((v, i) => {
        const old = saved[i];
        if (old === undefined) {
          f.rhs?.delete(v.name);
        } else {
          f.rhs?.set(v.name, old);
        }
      });
    }
    switch (fn) {
      case "any":
        return found.length > 0 ? "TRUE" : FALSE;
      case "find":
      case "find-all":
        return found.flat() as Atom[];
      default:
        return last;
    }
  };
}

/** Sets a loop variable: in the frame's own variables (a rule's or a deffunction's). */
function setVar(f: Frame, name: string, v: Value): void {
  if (!f.rhs) f.rhs = new Map();
  f.rhs.set(name, v);
}

function compileLoop(e: Expr & { k: "loop" }, opts: CompileOptions): Compiled {
  const from = compileExpr(e.from, opts);
  const to = compileExpr(e.to, opts);
  const body = compileBody(e.body, opts);
  const name = e.v;
  return (f) => {
    const start = from(f);
    const end = to(f);
    if (!isInteger(start) || !isInteger(end)) {
      throw rulesRuntimeError("loop-for-count expects integer bounds", {
        clips: "[ARGACCES5] Function loop-for-count expected argument #1 to be of type integer",
      });
    }
    const max = f.host.limits.maxLoopIterations;
    if (end - start + 1 > max)
      throw ruleLimitError("maxLoopIterations", max, undefined, "loop-for-count");
    try {
      for (let i = start; i <= end; i++) {
        if (name !== null) setVar(f, name, i);
        if (((i - start + 1) & 1023) === 0) f.host.checkDeadline();
        body(f);
        if (evaluationErrorSeen()) break;
      }
    } catch (signal) {
      if (!(signal instanceof BreakSignal)) throw signal;
    }
    return FALSE;
  };
}

function compileForeach(e: Expr & { k: "foreach" }, opts: CompileOptions): Compiled {
  const list = compileExpr(e.list, opts);
  const body = compileBody(e.body, opts);
  const name = e.v;
  const indexName = `${e.v}-index`;
  return (f) => {
    const m = list(f);
    const items = isMultifield(m) ? m : [m];
    let last: Value = FALSE;
    try {
      for (let i = 0; i < items.length; i++) {
        setVar(f, name, items[i] as Atom);
        setVar(f, indexName, i + 1);
        last = body(f);
        if (evaluationErrorSeen()) break;
      }
    } catch (signal) {
      if (!(signal instanceof BreakSignal)) throw signal;
    }
    return last;
  };
}

function unbound(name: string, pos: SourcePos, opts: CompileOptions): Error {
  return rulesLoadError(pos, `variable ?${name} is not bound`, {
    construct: opts.construct,
    clips: `[PRCCODE3] Undefined variable ${name} referenced in RHS of defrule.`,
    hint: "Bind it in a pattern on the left-hand side (or with bind before using it).",
  });
}

function flattenAll(vals: Value[]): Atom[] {
  const out: Atom[] = [];
  for (const v of vals) {
    if (isMultifield(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}

function compileBody(body: Expr[], opts: CompileOptions): Compiled {
  const parts = body.map((x) => compileExpr(x, opts));
  return (f) => {
    let last: Value = FALSE;
    for (const p of parts) last = p(f);
    return last;
  };
}

/** Slot names are resolved against the target fact's template at run time (modify, duplicate). */
function compileSlotChanges(slots: SlotSpec[], opts: CompileOptions): (f: Frame) => SlotChange[] {
  const parts = slots.map((s) => ({
    name: s.name,
    values: s.values.map((v) => compileExpr(v, opts)),
  }));
  return (f) => parts.map((p) => ({ name: p.name, values: p.values.map((c) => c(f)) }));
}

/** One value for a single slot, or the flattened values for a multislot (the caller checks which). */
export function slotValue(vals: Value[]): Value {
  return vals.length === 1 && !isMultifield(vals[0] as Value)
    ? (vals[0] as Value)
    : flattenAll(vals);
}

/** Compiles a fact description of an assert into what computes its values. */
export function compileFactSpec(spec: FactSpec, opts: CompileOptions): (f: Frame) => ResolvedFact {
  if (spec.kind === "ordered") {
    const fields = spec.fields.map((x) => compileExpr(x, opts));
    const relation = spec.relation;
    return (f) => {
      const values: Value[] = [];
      for (const c of fields) {
        const v = c(f);
        // A field that failed to evaluate ends the fact there, as in CLIPS.
        if (evaluationErrorSeen()) break;
        values.push(v);
      }
      return { kind: "ordered", relation, fields: flattenAll(values) };
    };
  }
  const slots = spec.slots.map((s) => ({
    index: spec.template.slotIndex.get(s.name) as number,
    values: s.values.map((v) => compileExpr(v, opts)),
  }));
  return (f) => {
    const m = new Map<number, Value>();
    for (const s of slots) {
      const vals = s.values.map((c) => c(f));
      const def = spec.template.slots[s.index];
      m.set(s.index, def?.multi ? flattenAll(vals) : slotValue(vals));
    }
    return { kind: "template", template: spec.template, slots: m };
  };
}

/** Whether an argument is `(expand$ …)`, spliced into the call's arguments. */
const isExpansion = (a: Expr): a is Expr & { k: "call" } => a.k === "call" && a.fn === "expand$";

/** The special forms CLIPS refuses `expand$` in (`[EXPRNPSR4]`). */
const NO_EXPANSION: ReadonlySet<string> = new Set(["progn", "return", "and", "or"]);

/**
 * A call with `(expand$ <multifield>)` among its arguments: the multifield's fields become
 * arguments. As in CLIPS, the argument count is checked when the call runs, not when parsed.
 */
function compileExpanding(e: Expr & { k: "call" }, opts: CompileOptions): Compiled {
  if (NO_EXPANSION.has(e.fn)) {
    throw rulesLoadError(e.pos, `expand$ cannot be an argument of ${e.fn}`, {
      construct: opts.construct,
      clips: `[EXPRNPSR4] $ Sequence operator not a valid argument for ${e.fn}.`,
    });
  }
  const parts = e.args.map((a) => {
    if (!isExpansion(a)) return { spread: false, value: compileExpr(a, opts) };
    const problem = arityProblem("expand$", a.args.length);
    if (problem) {
      throw rulesLoadError(a.pos, problem.message, {
        construct: opts.construct,
        clips: problem.clips,
      });
    }
    const only = a.args[0] as Expr;
    if (only.k === "const" && !Array.isArray(only.v)) throw expandNeedsMultifield();
    return { spread: true, value: compileExpr(only, opts) };
  });
  return (f) => {
    const values: Value[] = [];
    for (const p of parts) {
      const v = p.value(f);
      if (!p.spread) values.push(v);
      else if (Array.isArray(v)) values.push(...v);
      else throw expandNeedsMultifield();
    }
    const problem = arityProblem(e.fn, values.length);
    if (problem) throw rulesRuntimeError(problem.message, { clips: problem.clips });
    const args: Expr[] = values.map((v) => ({ k: "const", v }));
    return compileCall({ ...e, args }, opts)(f);
  };
}

function expandNeedsMultifield(): Error {
  return rulesRuntimeError("expand$ expects a multifield", {
    clips: "[ARGACCES5] Function expand$ expected argument #1 to be of type multifield",
  });
}

function compileCall(e: Expr & { k: "call" }, opts: CompileOptions): Compiled {
  if (e.args.some(isExpansion)) return compileExpanding(e, opts);
  const args = e.args.map((a) => compileExpr(a, opts));
  const name = e.fn;
  if (e.generic) return compileHostCall(name, args);
  const problem = arityProblem(name, args.length);
  if (problem) {
    throw rulesLoadError(e.pos, problem.message, {
      construct: opts.construct,
      clips: problem.clips,
    });
  }
  switch (name) {
    case "and":
      return (f) => {
        for (const a of args) if (a(f) === FALSE) return FALSE;
        return "TRUE";
      };
    case "or":
      return (f) => {
        for (const a of args) if (a(f) !== FALSE) return "TRUE";
        return FALSE;
      };
    case "progn":
      return (f) => {
        let last: Value = FALSE;
        for (const a of args) last = a(f);
        return last;
      };
    case "object-pattern-match-delay":
      // As progn, with instances matched only once the last action is done.
      return (f) =>
        f.host.delayObjectMatching(() => {
          let last: Value = FALSE;
          for (const a of args) last = a(f);
          return last;
        });
    case "printout":
      return (f) => {
        const r = args[0]?.(f);
        const router = r === undefined ? "t" : logicalName("printout", r);
        // CLIPS looks the router up first: for none it says so and prints nothing.
        if (!isRouterName(router)) {
          f.host.print("t", `${unknownRouterMessage(router)}\n`);
          return VOID;
        }
        // Each argument is printed as soon as it is evaluated, as CLIPS does: what evaluating a
        // later one prints (an error message) comes after it.
        for (let i = 1; i < args.length; i++) {
          const v = (args[i] as Compiled)(f);
          if (evaluationErrorSeen()) return VOID;
          const text = (isSymbol(v) ? CHAR_ROUTERS.get(v) : undefined) ?? formatValue(v, true);
          if (text !== "") f.host.print(router, text);
        }
        return VOID;
      };
    case "retract":
      return (f) => {
        args.forEach((a, i) => {
          f.host.retract(a(f), i + 1);
        });
        return VOID;
      };
    case "halt":
      return (f) => {
        f.host.halt();
        return VOID;
      };
    case "return": {
      const value = args[0];
      return (f) => {
        throw new ReturnSignal(value ? value(f) : VOID);
      };
    }
    case "break":
      return () => {
        throw new BreakSignal();
      };
    case "expand$": {
      // Anywhere but among a call's arguments (compileExpanding) expand$ is an error, reported
      // before its argument is evaluated (CLIPS 6.30: an unbound `$?a` in it goes unmentioned);
      // only a constant that is no multifield is refused first, when the call is parsed.
      const only = e.args[0];
      if (only?.k === "const" && !Array.isArray(only.v)) throw expandNeedsMultifield();
      return () => {
        throw rulesRuntimeError("expand$ must be an argument of a function call", {
          clips: "[MISCFUN1] expand$ must be used in the argument list of a function call.",
        });
      };
    }
  }
  if (OBJECT_CALLS.has(name)) {
    return (f) =>
      f.host.objects.call(
        name,
        args.map((a) => a(f)),
      ) ?? FALSE;
  }
  if (COMMANDS.has(name)) {
    return (f) =>
      f.host.command(
        name,
        args.map((a) => a(f)),
      ) ?? FALSE;
  }
  const builtin = BUILTINS.get(name);
  if (builtin && NUMBERS_IN_TURN.has(name)) return numbersInTurn(name, builtin.fn, args);
  if (builtin) {
    const fn = builtin.fn;
    if (args.length === 1) {
      const a0 = args[0] as Compiled;
      return (f) => fn([a0(f)]);
    }
    if (args.length === 2) {
      const a0 = args[0] as Compiled;
      const a1 = args[1] as Compiled;
      return (f) => fn([a0(f), a1(f)]);
    }
    return (f) => fn(args.map((a) => a(f)));
  }
  return compileHostCall(name, args);
}

/**
 * The arithmetic and comparison functions CLIPS evaluates an argument at a time, each checked
 * for a number before the next is evaluated: `(+ ?a ?b)` with both unbound says so for ?a only.
 */
const NUMBERS_IN_TURN: ReadonlySet<string> = new Set([
  "+",
  "-",
  "*",
  "/",
  "=",
  "<>",
  ">",
  "<",
  ">=",
  "<=",
]);

function numbersInTurn(name: string, fn: RuleFunction, args: readonly Compiled[]): Compiled {
  const number = (a: Compiled, i: number, f: Frame): Value => {
    const v = a(f);
    if (!isNumber(v)) throw typeError(name, i + 1, "integer or float");
    return v;
  };
  if (args.length === 2) {
    const a0 = args[0] as Compiled;
    const a1 = args[1] as Compiled;
    return (f) => fn([number(a0, 0, f), number(a1, 1, f)]);
  }
  return (f) => fn(args.map((a, i) => number(a, i, f)));
}

/** A call of a deffunction, generic function or host function, looked up when it runs. */
function compileHostCall(name: string, args: Compiled[]): Compiled {
  return (f) => {
    const hostFn = f.host.hostFunction(name);
    if (!hostFn) throw rulesRuntimeError(`unknown function '${name}'`);
    const procedure = (hostFn as { procedure?: string }).procedure;
    if (procedure === undefined) return hostFn(args.map((a) => a(f)));
    // A deffunction's or generic's arguments, evaluated one level deeper where it then runs
    // (CLIPS's ED in traces); CLIPS says so when one fails or has no value.
    const values: Value[] = [];
    stepIn();
    try {
      for (const a of args) {
        const v = a(f);
        if (v === VOID) {
          throw rulesRuntimeError(`an argument of ${procedure} has no value`, {
            clips: `[PRCCODE2] Functions without a return value are illegal as ${procedure.slice(0, procedure.lastIndexOf(" "))} arguments.`,
          });
        }
        values.push(v);
      }
    } catch (error) {
      if (isKeelError(error) && typeof error.details.clips === "string") {
        const line = `[PRCCODE6] This error occurred while evaluating arguments for the ${procedure}.`;
        error.details.clips = error.details.clips === "" ? line : `${error.details.clips}\n${line}`;
      }
      stepOut();
      throw error;
    }
    try {
      return hostFn(values);
    } finally {
      stepOut();
    }
  };
}
