/** Deffunctions and defglobals: the procedural part of an engine's constructs. */
import type { DeffunctionAst, Expr } from "./ast.js";
import { evaluationErrorHalt, haltedIn, takeEvaluationError } from "./clips-messages.js";
import { ReturnSignal } from "./control.js";
import { rulesRuntimeError } from "./errors.js";
import { evaluationDepth } from "./eval-depth.js";
import { type Compiled, compileExpr, type EvalHost, type Frame, slotValue } from "./evaluate.js";
import type { RuleFunction } from "./functions.js";
import { bareName, keyModule, type ModuleScope, ONE_MODULE } from "./module-scope.js";
import { type Atom, FALSE, isMultifield, type Value } from "./values.js";

interface Global {
  value: Value;
  readonly init: Compiled;
  readonly module: string;
}

/** The deffunctions and defglobals of one engine. */
export class Procedures {
  /** The defmodules' scope: a deffunction's actions run in its module (the engine's). */
  scope: ModuleScope = ONE_MODULE;
  private readonly functions = new Map<string, RuleFunction>();
  /** Keyed `MODULE::name`: modules are namespaces, two may define globals of one name. */
  private readonly globals = new Map<string, Global>();
  /** The globals of each name (one, unless several modules define it). */
  private readonly byName = new Map<string, Global[]>();
  /** How many calls of each deffunction are running (CLIPS will not delete a running one). */
  private readonly active = new Map<string, number>();
  /** Each deffunction's parameter count and whether it takes a wildcard (not the generics'). */
  private readonly arities = new Map<string, { params: number; rest: boolean }>();

  constructor(
    private readonly host: () => EvalHost,
    /** Told each time a global changes (`(watch globals)`). */
    private readonly onSet?: (name: string, now: Value, before: Value) => void,
    /** The current module, which picks among globals of one name in several modules. */
    private readonly module: () => string = () => "MAIN",
    /** Told as a deffunction starts and ends (`(watch deffunctions)`), with its depth. */
    private readonly onCall?: (begin: boolean, name: string, depth: number, args: Value[]) => void,
  ) {}

  hasFunction(name: string): boolean {
    return this.functions.has(name);
  }

  callable(name: string): RuleFunction | undefined {
    return this.functions.get(name);
  }

  /** Makes `name` callable before its body is parsed (a deffunction may call itself). */
  declareFunction(name: string): void {
    if (this.functions.has(name)) return;
    this.functions.set(name, () => {
      throw rulesRuntimeError(`deffunction ${name} is still being defined`);
    });
  }

  /** Makes `name` call `fn` (a generic function's dispatcher). */
  defineCallable(name: string, fn: RuleFunction): void {
    this.functions.set(name, fn);
    this.arities.delete(name);
  }

  forgetFunction(name: string): void {
    this.functions.delete(name);
    this.arities.delete(name);
  }

  /** Whether the deffunction `name` accepts `count` arguments; null when it is no deffunction. */
  acceptsCount(name: string, count: number): boolean | null {
    const a = this.arities.get(name);
    if (!a) return null;
    return a.rest ? count >= a.params : count === a.params;
  }

  /** CLIPS's [ARGACCES4] message for a call of the deffunction `key` with a wrong count. */
  arityText(key: string): string {
    const a = this.arities.get(key);
    const how = a?.rest ? "at least" : "exactly";
    return `[ARGACCES4] Function ${bareName(key)} expected ${how} ${a?.params ?? 0} argument(s)`;
  }

  /** Whether a call of the deffunction is running now. */
  running(name: string): boolean {
    return (this.active.get(name) ?? 0) > 0;
  }

  forgetGlobal(name: string, module: string): void {
    const g = this.globals.get(`${module}::${name}`);
    if (!g) return;
    this.globals.delete(`${module}::${name}`);
    const rest = (this.byName.get(name) ?? []).filter((x) => x !== g);
    if (rest.length > 0) this.byName.set(name, rest);
    else this.byName.delete(name);
  }

  /**
   * The global `name` stands for (`MOD::name`, or a bare name: the current module's, else the
   * only or first one — imports are not enforced).
   */
  private find(name: string): Global | undefined {
    if (name.includes("::")) return this.globals.get(name);
    const list = this.byName.get(name);
    if (list === undefined || list.length === 1) return list?.[0];
    const here = this.module();
    return list.find((g) => g.module === here) ?? list[0];
  }

  private put(name: string, g: Global): void {
    const key = `${g.module}::${name}`;
    const old = this.globals.get(key);
    this.globals.delete(key);
    this.globals.set(key, g);
    const list = this.byName.get(name) ?? [];
    const at = old ? list.indexOf(old) : -1;
    if (at >= 0) list[at] = g;
    else list.push(g);
    this.byName.set(name, list);
  }

  /**
   * Defines (or redefines) a deffunction, keyed `key` (module-scope.ts: `MOD::name`, a bare
   * name for MAIN's).
   */
  defineFunction(ast: DeffunctionAst, key = ast.name): void {
    const construct = `deffunction ${ast.name}`;
    const body = ast.body.map((e) => compileExpr(e, { resolve: () => null, rhs: true, construct }));
    const { params, rest, name } = ast;
    const module = keyModule(key);
    const arity = params.length;
    this.arities.set(key, { params: arity, rest: rest !== null });
    const call: RuleFunction = (args) => {
      if (rest === null ? args.length !== arity : args.length < arity) {
        const how = rest === null ? "exactly" : "at least";
        throw rulesRuntimeError(`deffunction ${name} expects ${how} ${arity} argument(s)`, {
          clips: `[ARGACCES4] Function ${name} expected ${how} ${arity} argument(s)`,
        });
      }
      const vars = new Map<string, Value>();
      for (let i = 0; i < arity; i++) vars.set(params[i] as string, args[i] as Value);
      if (rest !== null) {
        const tail: Atom[] = [];
        for (let i = arity; i < args.length; i++) {
          const a = args[i] as Value;
          if (isMultifield(a)) tail.push(...a);
          else tail.push(a);
        }
        vars.set(rest, tail);
      }
      const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
      let last: Value = FALSE;
      this.active.set(key, (this.active.get(key) ?? 0) + 1);
      // The caller stepped one level deeper before evaluating the arguments (compileHostCall).
      const depth = evaluationDepth();
      this.onCall?.(true, name, depth, args);
      const before = this.scope.enter(module);
      try {
        for (const action of body) {
          last = action(frame);
          if (takeEvaluationError()) throw evaluationErrorHalt();
        }
      } catch (signal) {
        if (signal instanceof ReturnSignal) {
          this.onCall?.(false, name, depth, args);
          return signal.value;
        }
        throw haltedIn(signal, `deffunction ${name}`);
      } finally {
        this.scope.leave(before);
        this.active.set(key, (this.active.get(key) ?? 1) - 1);
      }
      this.onCall?.(false, name, depth, args);
      return last;
    };
    // What a failing argument's message names ([PRCCODE6]).
    this.functions.set(key, Object.assign(call, { procedure: `deffunction ${name}` }));
  }

  hasGlobal(name: string): boolean {
    return this.find(name) !== undefined;
  }

  /**
   * Defines one global of a defglobal: its value is evaluated first, so a value that fails
   * (its error thrown, or reported and read as FALSE) leaves the global as it was.
   */
  defineGlobal(name: string, initExpr: Expr, module = "MAIN"): void {
    const init = compileExpr(initExpr, { resolve: () => null, rhs: true, construct: "defglobal" });
    const value = this.evaluate(init);
    if (takeEvaluationError()) throw evaluationErrorHalt();
    this.put(name, { value, init, module });
  }

  global(name: string): Value {
    const g = this.find(name);
    if (!g) {
      throw rulesRuntimeError(`global variable ?*${name}* is not defined`, {
        clips: `[GLOBLDEF1] Global variable ?*${name}* is unbound.`,
      });
    }
    return g.value;
  }

  setGlobal(name: string, value: Value): void {
    const g = this.find(name);
    if (!g) throw rulesRuntimeError(`global variable ?*${name}* is not defined`);
    this.onSet?.(name, value, g.value);
    g.value = value;
  }

  /** `(bind ?*name*)`: the global takes its initial value again (evaluated anew). */
  resetGlobal(name: string): Value {
    const g = this.find(name);
    if (!g) throw rulesRuntimeError(`global variable ?*${name}* is not defined`);
    const value = this.evaluate(g.init);
    this.onSet?.(name, value, g.value);
    g.value = value;
    return value;
  }

  /** `(reset)`: every global takes its initial value again. */
  resetGlobals(): void {
    for (const [key, g] of this.globals) {
      const value = this.evaluate(g.init);
      this.onSet?.(key.slice(g.module.length + 2), value, g.value);
      g.value = value;
    }
  }

  /** The current values, for snapshots: MAIN's globals by name, the others' as `MOD::name`. */
  globalValues(): [string, Value][] {
    return [...this.globals].map(([key, g]) => [g.module === "MAIN" ? key.slice(6) : key, g.value]);
  }

  private evaluate(init: Compiled): Value {
    return slotValue([init({ tok: null, local: null, rhs: new Map(), host: this.host() })]);
  }
}
