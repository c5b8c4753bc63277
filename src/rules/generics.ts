/**
 * Generic functions (defgeneric/defmethod, BPG section 8): the applicable methods of a call are
 * ordered most specific first, by each parameter's restriction in turn, and the first runs;
 * `call-next-method` runs the next.
 */
import type { MethodAst, MethodParam } from "./ast.js";
import { evaluationErrorHalt, haltedIn, takeEvaluationError } from "./clips-messages.js";
import { ReturnSignal } from "./control.js";
import { rulesLoadError, rulesRuntimeError } from "./errors.js";
import { evaluationDepth } from "./eval-depth.js";
import { type Compiled, compileExpr, type EvalHost, type Frame, OBJECT_CALLS } from "./evaluate.js";
import { BUILTINS, type RuleFunction } from "./functions.js";
import { bareName, constructKey, keyModule, type ModuleScope, ONE_MODULE } from "./module-scope.js";
import type { ClassDef } from "./objects.js";
import { ppDefmethod } from "./pp-constructs.js";
import type { SList } from "./reader.js";
import { systemMethod } from "./system-methods.js";
import {
  type Atom,
  FALSE,
  formatValue,
  isFactRef,
  isFloat,
  isInstanceName,
  isInstanceRef,
  isInteger,
  isMultifield,
  isString,
  isSymbol,
  TRUE,
  type Value,
} from "./values.js";

interface Method {
  /** The method's index (`foo #2`): given in the defmethod, else the generic's next one. */
  readonly index: number;
  readonly ast: MethodAst;
  /** The defmethod's form, for ppdefmethod. */
  readonly form: SList | null;
  readonly queries: (Compiled | null)[];
  readonly restQuery: Compiled | null;
  readonly body: Compiled[];
  /**
   * Each class name the restrictions give, as the class the method's module sees (a key of
   * module-scope.ts: `MOD::NAME`, bare for MAIN's), so two classes of one name in two modules
   * are told apart; absent: the names as written.
   */
  readonly classKeys?: ReadonlyMap<string, string>;
  /** The system function an implicit method (`#SYS1`) calls, with its argument bound. */
  readonly system?: { readonly fn: RuleFunction; readonly maxArgs?: number };
}

/** One generic function: its methods in precedence order (CLIPS orders them when defined). */
interface Generic {
  readonly name: string;
  readonly module: string;
  readonly methods: Method[];
  nextIndex: number;
}

interface Call {
  readonly generic: Generic;
  /** The position of the running method in `generic.methods`. */
  at: number;
  readonly args: Value[];
}

/** A method's restrictions as CLIPS compares them: each parameter, the wildcard last. */
interface Restrictions {
  readonly list: readonly MethodParam[];
  /** Regular parameters. */
  readonly min: number;
  /** -1 with a wildcard. */
  readonly max: number;
}

function restrictionsOf(ast: MethodAst): Restrictions {
  const list = ast.rest ? [...ast.params, ast.rest] : ast.params;
  return { list, min: ast.params.length, max: ast.rest ? -1 : ast.params.length };
}

/** The variable a parameter's query reads its argument from. */
const CURRENT_ARGUMENT = "current-argument";

const HIGHER = -1;
const IDENTICAL = 0;
const LOWER = 1;

/** What dispatch needs to know of classes: an instance's class. */
export type ClassOf = (v: Value) => ClassDef | null;

/** The primitive type names a value belongs to, most specific first. */
function primitiveTypes(v: Value): string[] {
  if (isInteger(v)) return ["INTEGER", "NUMBER", "PRIMITIVE", "OBJECT"];
  if (isFloat(v)) return ["FLOAT", "NUMBER", "PRIMITIVE", "OBJECT"];
  if (isSymbol(v)) return ["SYMBOL", "LEXEME", "PRIMITIVE", "OBJECT"];
  if (isString(v)) return ["STRING", "LEXEME", "PRIMITIVE", "OBJECT"];
  if (isMultifield(v)) return ["MULTIFIELD", "PRIMITIVE", "OBJECT"];
  if (isFactRef(v)) return ["FACT-ADDRESS", "ADDRESS", "PRIMITIVE", "OBJECT"];
  return ["OBJECT"];
}

/**
 * The generic functions of one engine, keyed as module-scope.ts keys constructs (`MOD::name`, a
 * bare name for MAIN's): every method below takes that key.
 */
export class Generics {
  /** The defmodules' scope: a method's actions run in its generic function's module. */
  scope: ModuleScope = ONE_MODULE;
  private readonly generics = new Map<string, Generic>();
  private readonly stack: Call[] = [];
  /** The generics whose methods' restrictions are being tested (a query may call anything). */
  private readonly testing: string[] = [];

  constructor(
    private readonly host: () => EvalHost,
    private readonly classOf: ClassOf,
    /** A class by name (user or system), to order type restrictions by inheritance. */
    private readonly classNamed: (name: string) => ClassDef | undefined = () => undefined,
    /** Whether `(watch generic-functions)` or `(watch methods)` is on. */
    private readonly watching: (item: "generic-functions" | "methods") => boolean = () => false,
    /** Where traces go. */
    private readonly print: (text: string) => void = () => {},
  ) {}

  has(name: string): boolean {
    return this.generics.has(name);
  }

  clear(): void {
    this.generics.clear();
  }

  /** The generic functions' keys, in definition order (those of `module` when given). */
  keys(module?: string): string[] {
    const out: string[] = [];
    for (const [key, g] of this.generics)
      if (module === undefined || g.module === module) out.push(key);
    return out;
  }

  /** The generic functions' names, in definition order (those of `module` when given). */
  names(module?: string): string[] {
    const out: string[] = [];
    for (const g of this.generics.values())
      if (module === undefined || g.module === module) out.push(g.name);
    return out;
  }

  /** The module of a generic function, or undefined when there is none of that name. */
  moduleOf(name: string): string | undefined {
    return this.generics.get(name)?.module;
  }

  /** Each method's index and restrictions text (`#2  (INTEGER) ($? NUMBER <qry>)`), in precedence order. */
  describe(name: string): { index: number; text: string }[] | undefined {
    return this.generics
      .get(name)
      ?.methods.map((m) => ({ index: m.index, text: describeMethod(m) }));
  }

  /** A method's restrictions (get-method-restrictions): `max` is -1 with a wildcard. */
  restrictions(
    name: string,
    index: number,
  ): { min: number; max: number; list: readonly MethodParam[] } | undefined {
    const m = this.generics.get(name)?.methods.find((x) => x.index === index);
    return m === undefined ? undefined : restrictionsOf(m.ast);
  }

  /** CLIPS moves a generic to the end of its list each time a defgeneric or defmethod names it. */
  touch(name: string): void {
    const g = this.generics.get(name);
    if (g === undefined) return;
    this.generics.delete(name);
    this.generics.set(name, g);
  }

  /** The form a method was defined from, or undefined (no such method); null for no form. */
  methodForm(name: string, index: number): SList | null | undefined {
    const m = this.generics.get(name)?.methods.find((x) => x.index === index);
    return m === undefined ? undefined : m.form;
  }

  /**
   * Whether a call of the generic is running now, its methods' restrictions being tested
   * included (CLIPS will not delete or change it).
   */
  running(name: string): boolean {
    const g = this.generics.get(name);
    return (
      this.testing.includes(name) || (g !== undefined && this.stack.some((c) => c.generic === g))
    );
  }

  /** Deletes a generic function and its methods. */
  forget(name: string): void {
    this.generics.delete(name);
  }

  /** Deletes one method; false when the generic has none of that index. */
  forgetMethod(name: string, index: number): boolean {
    const g = this.generics.get(name);
    const at = g ? g.methods.findIndex((m) => m.index === index) : -1;
    if (!g || at < 0) return false;
    g.methods.splice(at, 1);
    return true;
  }

  /** `(defgeneric name)`: the callable that dispatches (the caller registers it). */
  declare(name: string, module = "MAIN"): RuleFunction {
    const key = constructKey(module, name);
    if (!this.generics.has(key)) {
      const g: Generic = { name, module, methods: [], nextIndex: 1 };
      this.generics.set(key, g);
      // Overloading a system function: the function stays callable as the generic's method #SYS1.
      const sys = systemMethod(name);
      if (sys) {
        const fn = this.systemFunction(name);
        const ast: MethodAst = { name, params: sys.params, rest: sys.rest, body: [], source: "" };
        const at = this.position(g, restrictionsOf(ast));
        g.methods.splice(at.at, 0, {
          index: g.nextIndex++,
          ast,
          form: null,
          queries: [],
          restQuery: null,
          body: [],
          system: { fn, ...(sys.maxArgs !== undefined ? { maxArgs: sys.maxArgs } : {}) },
        });
      }
    }
    return (args) => this.dispatch(key, args);
  }

  /** What a system function's implicit method calls. */
  private systemFunction(name: string): RuleFunction {
    const builtin = BUILTINS.get(name)?.fn;
    if (builtin) return builtin;
    if (OBJECT_CALLS.has(name)) return (args) => this.host().objects.call(name, args) ?? FALSE;
    return () => {
      throw rulesRuntimeError(`system function ${name} is not built in Keel`, {
        hint: "Give the generic function a method of its own for these arguments.",
      });
    };
  }

  /** Whether `name` is a generic function that overloads a system function. */
  overloads(name: string): boolean {
    return this.generics.get(name)?.methods.some((m) => m.system) ?? false;
  }

  /**
   * `(defmethod …)`, placed among the generic's methods by CLIPS's precedence (FindMethodByRestrictions):
   * before the first method it precedes; one with the same restrictions is replaced and keeps its index.
   */
  defineMethod(ast: MethodAst, form: SList | null = null, key = ast.name): void {
    const construct = `defmethod ${ast.name}`;
    const g = this.generics.get(key) ?? {
      name: ast.name,
      module: keyModule(key),
      methods: [],
      nextIndex: 1,
    };
    this.generics.set(key, g);
    const mine = restrictionsOf(ast);
    let index = ast.index ?? 0;
    let at = this.position(g, mine);
    if (at.same) {
      const old = g.methods[at.at] as Method;
      if (index !== 0 && index !== old.index) {
        const echo = form ? ppDefmethod(form, g.module, true) : null;
        const message = `[GENRCPSR2] New method #${index} would be indistinguishable from method #${old.index}.`;
        throw rulesLoadError(
          form?.pos,
          `new method #${index} would be indistinguishable from method #${old.index}`,
          {
            construct,
            // The printer does not replay defmethods: the echo is given with the message.
            clips: echo === null ? message : `${message}\n\nERROR:\n${echo}`,
            hint: "Give the method the index of the one it replaces, or none.",
          },
        );
      }
      index = old.index;
      g.methods.splice(at.at, 1);
    } else if (index !== 0) {
      const old = g.methods.findIndex((m) => m.index === index);
      if (old >= 0) {
        g.methods.splice(old, 1);
        at = this.position(g, mine);
      }
    }
    if (index === 0) index = g.nextIndex++;
    else if (index >= g.nextIndex) g.nextIndex = index + 1;
    const procedure = `generic function ${ast.name} method #${index}`;
    const compile = (e: import("./ast.js").Expr) =>
      compileExpr(e, { resolve: () => null, rhs: true, construct, procedure });
    const classKeys = new Map<string, string>();
    for (const p of [...ast.params, ...(ast.rest ? [ast.rest] : [])]) {
      for (const t of p.types) {
        const cls = this.classNamed(t);
        if (cls) classKeys.set(t, constructKey(cls.module, cls.name));
      }
    }
    const method: Method = {
      index,
      ast,
      form,
      classKeys,
      queries: ast.params.map((p) => (p.query ? compile(p.query) : null)),
      restQuery: ast.rest?.query ? compile(ast.rest.query) : null,
      body: ast.body.map(compile),
    };
    g.methods.splice(at.at, 0, method);
  }

  /** Where restrictions `r` go among `g`'s methods, and whether a method there has the same ones. */
  private position(g: Generic, r: Restrictions): { at: number; same: boolean } {
    for (let i = 0; i < g.methods.length; i++) {
      const cmp = this.compareRestrictions(r, restrictionsOf((g.methods[i] as Method).ast));
      if (cmp === IDENTICAL) return { at: i, same: true };
      if (cmp === HIGHER) return { at: i, same: false };
    }
    return { at: g.methods.length, same: false };
  }

  /** CLIPS's RestrictionsCompare: how new restrictions `a` rank against a method's `b`. */
  private compareRestrictions(a: Restrictions, b: Restrictions): number {
    let diff = false;
    const n = Math.min(a.list.length, b.list.length);
    for (let i = 0; i < n; i++) {
      // A wildcard parameter ranks below a regular one, whatever its types.
      if (i === a.list.length - 1 && a.max === -1 && b.max !== -1) return LOWER;
      if (i === b.list.length - 1 && a.max !== -1 && b.max === -1) return HIGHER;
      const r1 = a.list[i] as MethodParam;
      const r2 = b.list[i] as MethodParam;
      const types = this.compareTypes(r1.types, r2.types);
      if (types !== IDENTICAL) return types;
      if (r1.query === null && r2.query !== null) return LOWER;
      if (r1.query !== null && r2.query === null) return HIGHER;
      if (exprKey(r1.query) !== exprKey(r2.query)) diff = true;
    }
    if (a.list.length === b.list.length) return diff ? LOWER : IDENTICAL;
    // As CLIPS 6.30 writes it: more regular parameters first, then the one without a wildcard.
    if (a.min > b.min) return HIGHER;
    if (b.min < a.min) return LOWER;
    return a.max === -1 ? LOWER : HIGHER;
  }

  /** CLIPS's TypeListCompare: a subclass precedes its superclass, position by position. */
  private compareTypes(t1: readonly string[], t2: readonly string[]): number {
    if (t1.length === 0 && t2.length === 0) return IDENTICAL;
    if (t1.length === 0) return LOWER;
    if (t2.length === 0) return HIGHER;
    let diff = false;
    for (let i = 0; i < t1.length && i < t2.length; i++) {
      const a = t1[i] as string;
      const b = t2[i] as string;
      if (a === b) continue;
      diff = true;
      if (this.inherits(a, b)) return HIGHER;
      if (this.inherits(b, a)) return LOWER;
    }
    if (t1.length < t2.length) return HIGHER;
    if (t1.length > t2.length) return LOWER;
    return diff ? LOWER : IDENTICAL;
  }

  /** Whether class `sub` has `sup` as a superclass. */
  private inherits(sub: string, sup: string): boolean {
    const c = this.classNamed(sub);
    return c?.cpl.some((x) => x.name === sup && x !== c) ?? false;
  }

  private typesOf(v: Value): string[] {
    const cls = isInstanceName(v) || isInstanceRef(v) ? this.classOf(v) : null;
    if (cls) {
      const names = cls.cpl
        .filter((c) => c.name !== "OBJECT")
        .map((c) => constructKey(c.module, c.name));
      const kind = isInstanceName(v) ? "INSTANCE-NAME" : "INSTANCE-ADDRESS";
      return [...names, kind, "INSTANCE", "OBJECT"];
    }
    if (isInstanceName(v)) return ["INSTANCE-NAME", "INSTANCE", "PRIMITIVE", "OBJECT"];
    return primitiveTypes(v);
  }

  /** Whether `p`'s types, of method `m`, admit `v` (no types: anything). */
  private fits(p: MethodParam, v: Value, m: Method): boolean {
    const generic = m.ast.name;
    if (p.types.length === 0) return true;
    if (isInstanceName(v) && this.classOf(v) === null) {
      throw rulesRuntimeError(`no instance ${v} to take the class of`, {
        clips: `[GENRCEXE3] Unable to determine class of ${formatValue(v)} in generic function ${generic}.`,
      });
    }
    const types = this.typesOf(v);
    return p.types.some((t) => types.includes(m.classKeys?.get(t) ?? t));
  }

  /**
   * Whether method `m` applies to `args`, tested as CLIPS does: argument by argument, its types
   * then its query, which reads the argument as `?current-argument` (each of a wildcard's).
   */
  private applies(m: Method, args: Value[]): boolean {
    const { params, rest } = m.ast;
    if (rest === null ? args.length !== params.length : args.length < params.length) return false;
    if (m.system?.maxArgs !== undefined && args.length > m.system.maxArgs) return false;
    const vars = new Map<string, Value>();
    params.forEach((p, i) => {
      vars.set(p.name, args[i] as Value);
    });
    if (rest) vars.set(rest.name, flatten(args.slice(params.length)));
    const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
    for (let i = 0; i < args.length; i++) {
      const wildcard = i >= params.length;
      const p = (wildcard ? rest : params[i]) as MethodParam;
      const arg = args[i] as Value;
      if (!this.fits(p, arg, m)) return false;
      const query = wildcard ? m.restQuery : m.queries[i];
      if (!query) continue;
      vars.set(CURRENT_ARGUMENT, arg);
      if (query(frame) === FALSE) return false;
    }
    return true;
  }

  /** The position of the first method from `from` on that applies to `args`, or -1. */
  private nextApplicable(g: Generic, from: number, args: Value[]): number {
    for (let i = from; i < g.methods.length; i++) {
      if (this.applies(g.methods[i] as Method, args)) return i;
    }
    return -1;
  }

  /** `(preview-generic name args…)`: the methods that apply, in the order they would run. */
  applicable(name: string, args: Value[]): { index: number; text: string }[] | undefined {
    const g = this.generics.get(name);
    if (!g) return undefined;
    const out: { index: number; text: string }[] = [];
    for (const m of g.methods)
      if (this.applies(m, args)) out.push({ index: m.index, text: describeMethod(m) });
    return out;
  }

  private dispatch(name: string, args: Value[]): Value {
    const g = this.generics.get(name);
    let at = -1;
    if (g) {
      this.testing.push(name);
      try {
        at = this.nextApplicable(g, 0, args);
      } finally {
        this.testing.pop();
      }
    }
    if (!g || at < 0) {
      throw rulesRuntimeError(`no method of ${bareName(name)} applies to these arguments`, {
        clips: `[GENRCEXE1] No applicable methods for ${bareName(name)}.`,
      });
    }
    // The call runs one level deeper, where its arguments were evaluated (compileHostCall), and
    // its methods at that level (CLIPS's ED in traces).
    const trace = this.traced("generic-functions", `${g.name} `, args);
    trace?.(true);
    const value = this.run({ generic: g, at, args }, args);
    trace?.(false);
    return value;
  }

  /**
   * The `>>`/`<<` trace of a generic call (`GNC`) or a method (`MTH`) while that item is watched:
   * `GNC >> f  ED:1 (1 2)`, `MTH >> f:#2  ED:1 (1 2)`; null while it is not.
   */
  private traced(
    item: "generic-functions" | "methods",
    what: string,
    args: readonly Value[],
  ): ((begin: boolean) => void) | null {
    if (!this.watching(item)) return null;
    const tag = item === "methods" ? "MTH" : "GNC";
    const tail = ` ED:${evaluationDepth()} (${args.map((a) => formatValue(a)).join(" ")})\n`;
    return (begin) => this.print(`${tag} ${begin ? ">>" : "<<"} ${what}${tail}`);
  }

  private run(call: Call, args: Value[]): Value {
    const m = call.generic.methods[call.at] as Method;
    const index = `${m.system ? "SYS" : ""}${m.index}`;
    const trace = this.traced("methods", `${call.generic.name}:#${index} `, args);
    trace?.(true);
    const value = this.runMethod(m, call, args);
    trace?.(false);
    return value;
  }

  private runMethod(m: Method, call: Call, args: Value[]): Value {
    if (m.system) return m.system.fn(args);
    const vars = new Map<string, Value>();
    m.ast.params.forEach((p, i) => {
      vars.set(p.name, args[i] as Value);
    });
    if (m.ast.rest) vars.set(m.ast.rest.name, flatten(args.slice(m.ast.params.length)));
    const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
    this.stack.push(call);
    let last: Value = FALSE;
    // A method's actions run in its generic function's module.
    const before = this.scope.enter(call.generic.module);
    try {
      for (const action of m.body) {
        last = action(frame);
        // An error reported and gone on from (an unbound variable) halts the method.
        if (takeEvaluationError()) throw evaluationErrorHalt();
      }
    } catch (signal) {
      if (signal instanceof ReturnSignal) return signal.value;
      throw haltedIn(signal, `generic function ${call.generic.name} method #${m.index}`);
    } finally {
      this.scope.leave(before);
      this.stack.pop();
    }
    return last;
  }

  /** call-next-method, override-next-method, next-methodp; null when `name` is not one. */
  call(name: string, args: Value[]): Value | null {
    const top = this.stack[this.stack.length - 1];
    switch (name) {
      case "call-next-method":
      case "override-next-method": {
        const next = name === "call-next-method" ? (top?.args ?? []) : args;
        const at = top ? this.nextApplicable(top.generic, top.at + 1, next) : -1;
        if (!top || at < 0) {
          const why = top ? "no next method applies here" : "is only allowed inside a method";
          throw rulesRuntimeError(`${name} ${why}`, {
            clips: "[GENRCEXE2] Shadowed methods not applicable in current context.",
          });
        }
        return this.run({ generic: top.generic, at, args: next }, next);
      }
      case "next-methodp":
        return top && this.nextApplicable(top.generic, top.at + 1, top.args) >= 0 ? TRUE : FALSE;
      default:
        return null;
    }
  }
}

/** `#2  (INTEGER <qry>) ($? NUMBER)` without the name: list-defmethods' text of a method. */
function describeMethod(m: Method): string {
  const one = (p: MethodParam, wildcard: boolean): string => {
    const parts = [...(wildcard ? ["$?"] : []), ...p.types, ...(p.query ? ["<qry>"] : [])];
    if (wildcard && parts.length === 1) return "$?";
    return `(${parts.join(" ")})`;
  };
  const list = m.ast.params.map((p) => one(p, false));
  if (m.ast.rest) list.push(one(m.ast.rest, true));
  // CLIPS writes the index as "%-2d ": one space after an index of two digits.
  return `#${m.system ? "SYS" : ""}${String(m.index).padEnd(2)} ${list.join(" ")}`;
}

/** An expression's shape without its source positions, to compare two queries. */
function exprKey(e: unknown): string {
  return JSON.stringify(e, (k, v) => (k === "pos" ? undefined : v));
}

function flatten(vals: Value[]): Atom[] {
  const out: Atom[] = [];
  for (const v of vals) {
    if (isMultifield(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}
