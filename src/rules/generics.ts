/**
 * Generic functions (defgeneric/defmethod, BPG section 8): the applicable methods of a call are
 * ordered most specific first, by each parameter's restriction in turn, and the first runs;
 * `call-next-method` runs the next.
 */
import type { MethodAst, MethodParam } from "./ast.js";
import { ReturnSignal } from "./control.js";
import { rulesRuntimeError } from "./errors.js";
import { type Compiled, compileExpr, type EvalHost, type Frame } from "./evaluate.js";
import type { RuleFunction } from "./functions.js";
import type { ClassDef } from "./objects.js";
import {
  type Atom,
  FALSE,
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
  readonly ast: MethodAst;
  readonly queries: (Compiled | null)[];
  readonly restQuery: Compiled | null;
  readonly body: Compiled[];
  readonly order: number;
}

interface Call {
  readonly methods: Method[];
  index: number;
  readonly args: Value[];
}

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

/** The generic functions of one engine. */
export class Generics {
  private readonly generics = new Map<string, Method[]>();
  private readonly stack: Call[] = [];
  private order = 0;

  constructor(
    private readonly host: () => EvalHost,
    private readonly classOf: ClassOf,
  ) {}

  has(name: string): boolean {
    return this.generics.has(name);
  }

  clear(): void {
    this.generics.clear();
  }

  /** `(defgeneric name)`: the callable that dispatches (the caller registers it). */
  declare(name: string): RuleFunction {
    if (!this.generics.has(name)) this.generics.set(name, []);
    return (args) => this.dispatch(name, args);
  }

  /** Forgets a generic function its first, failed, defmethod declared. */
  forget(name: string): void {
    this.generics.delete(name);
  }

  /** `(defmethod …)`; a method with the same restrictions replaces the old one. */
  defineMethod(ast: MethodAst): void {
    const construct = `defmethod ${ast.name}`;
    const compile = (e: import("./ast.js").Expr) =>
      compileExpr(e, { resolve: () => null, rhs: true, construct });
    const method: Method = {
      ast,
      queries: ast.params.map((p) => (p.query ? compile(p.query) : null)),
      restQuery: ast.rest?.query ? compile(ast.rest.query) : null,
      body: ast.body.map(compile),
      order: this.order++,
    };
    const list = this.generics.get(ast.name) ?? [];
    const key = signature(ast);
    const at = list.findIndex((m) => signature(m.ast) === key);
    if (at >= 0) list[at] = method;
    else list.push(method);
    this.generics.set(ast.name, list);
  }

  private typesOf(v: Value): string[] {
    const cls = isInstanceName(v) || isInstanceRef(v) ? this.classOf(v) : null;
    if (cls) {
      const names = cls.cpl.map((c) => c.name).filter((n) => n !== "OBJECT");
      const kind = isInstanceName(v) ? "INSTANCE-NAME" : "INSTANCE-ADDRESS";
      return [...names, kind, "INSTANCE", "OBJECT"];
    }
    if (isInstanceName(v)) return ["INSTANCE-NAME", "INSTANCE", "PRIMITIVE", "OBJECT"];
    return primitiveTypes(v);
  }

  /** How well `p` fits `v`: the rank of its best type in `v`'s types (lower: more specific). */
  private fit(p: MethodParam, v: Value): number {
    if (p.types.length === 0) return 1000;
    const types = this.typesOf(v);
    let best = -1;
    for (const t of p.types) {
      const i = types.indexOf(t);
      if (i >= 0 && (best < 0 || i < best)) best = i;
    }
    return best;
  }

  private applicable(m: Method, args: Value[]): number[] | null {
    const { params, rest } = m.ast;
    if (rest === null ? args.length !== params.length : args.length < params.length) return null;
    const ranks: number[] = [];
    const vars = new Map<string, Value>();
    for (let i = 0; i < params.length; i++) {
      const p = params[i] as MethodParam;
      const r = this.fit(p, args[i] as Value);
      if (r < 0) return null;
      ranks.push(r * 2 + (p.query ? 0 : 1));
      vars.set(p.name, args[i] as Value);
    }
    if (rest) {
      const tail = args.slice(params.length);
      for (const a of tail) if (this.fit(rest, a) < 0) return null;
      vars.set(rest.name, flatten(tail));
    }
    const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
    for (const q of m.queries) if (q && q(frame) === FALSE) return null;
    if (m.restQuery && m.restQuery(frame) === FALSE) return null;
    ranks.push(rest ? 1 : 0);
    return ranks;
  }

  private dispatch(name: string, args: Value[]): Value {
    const methods = this.generics.get(name) ?? [];
    const found: { m: Method; ranks: number[] }[] = [];
    for (const m of methods) {
      const ranks = this.applicable(m, args);
      if (ranks) found.push({ m, ranks });
    }
    if (found.length === 0) {
      throw rulesRuntimeError(`no method of ${name} applies to these arguments`, {
        clips: `[GENRCEXE1] No applicable methods for ${name}.`,
      });
    }
    found.sort((a, b) => {
      const n = Math.max(a.ranks.length, b.ranks.length);
      for (let i = 0; i < n; i++) {
        const d = (a.ranks[i] ?? 0) - (b.ranks[i] ?? 0);
        if (d !== 0) return d;
      }
      return a.m.order - b.m.order;
    });
    const call: Call = { methods: found.map((f) => f.m), index: 0, args };
    this.stack.push(call);
    try {
      return this.runNext(call, args);
    } finally {
      this.stack.pop();
    }
  }

  private runNext(call: Call, args: Value[]): Value {
    const m = call.methods[call.index++];
    if (!m) throw rulesRuntimeError("call-next-method: no next method");
    const vars = new Map<string, Value>();
    m.ast.params.forEach((p, i) => {
      vars.set(p.name, args[i] as Value);
    });
    if (m.ast.rest) vars.set(m.ast.rest.name, flatten(args.slice(m.ast.params.length)));
    const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
    let last: Value = FALSE;
    try {
      for (const action of m.body) last = action(frame);
    } catch (signal) {
      if (signal instanceof ReturnSignal) return signal.value;
      throw signal;
    }
    return last;
  }

  /** call-next-method, override-next-method, next-methodp; null when `name` is not one. */
  call(name: string, args: Value[]): Value | null {
    const top = this.stack[this.stack.length - 1];
    switch (name) {
      case "call-next-method":
      case "override-next-method": {
        if (!top) throw rulesRuntimeError(`${name} is only allowed inside a method`);
        const saved = top.index;
        try {
          return this.runNext(top, name === "call-next-method" ? top.args : args);
        } finally {
          top.index = saved;
        }
      }
      case "next-methodp":
        return top && top.index < top.methods.length ? TRUE : FALSE;
      default:
        return null;
    }
  }
}

function signature(ast: MethodAst): string {
  const p = (x: MethodParam) => `${x.types.join("|")}${x.query ? "?" : ""}`;
  return `${ast.params.map(p).join(",")};${ast.rest ? p(ast.rest) : "-"}`;
}

function flatten(vals: Value[]): Atom[] {
  const out: Atom[] = [];
  for (const v of vals) {
    if (isMultifield(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}
