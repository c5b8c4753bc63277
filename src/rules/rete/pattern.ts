import { isKeelError } from "../../core/index.js";
import type { Expr, FieldConstraint, PatternCE, Term } from "../ast.js";
import { rulesLoadError, rulesRuntimeError } from "../errors.js";
import { type Compiled, compileExpr, type EvalHost, type Frame } from "../evaluate.js";
import type { Fact } from "../facts.js";
import { compositeKey, hashKey } from "../facts.js";
import { FALSE, type Value, valuesEqual } from "../values.js";
import type { JoinSpec } from "./beta.js";
import type { AlphaMatch, AlphaMatcher, Token } from "./memory.js";

/** Where a variable bound on the left-hand side lives: token position and local slot (-1: the fact). */
export interface VarLoc {
  readonly slot: number;
  readonly idx: number;
}

export type Scope = Map<string, VarLoc>;

/** Reads a variable from a token's matches. */
export function tokenReader(loc: VarLoc): Compiled {
  const { slot, idx } = loc;
  if (idx < 0) return (f) => ((f.tok as AlphaMatch[])[slot] as AlphaMatch).fact;
  return (f) => ((f.tok as AlphaMatch[])[slot] as AlphaMatch).vals[idx] as Value;
}

/** What compiling a pattern gives: an alpha part (shareable) and a join part. */
export interface CompiledPattern {
  readonly alphaKey: string;
  readonly matcher: AlphaMatcher;
  readonly join: JoinSpec;
  /** Variables first bound by this pattern → local slot (address variable → -1). */
  readonly locals: Map<string, number>;
}

interface FieldPlan {
  readonly multi: boolean;
  /** Local slot holding the field's value, or -1. */
  readonly slot: number;
  /** Test against locally bound values, or null. */
  readonly check: ((v: Value, local: Value[]) => boolean) | null;
}

interface Context {
  readonly outer: Scope;
  readonly locals: Map<string, number>;
  nextSlot: number;
  readonly host: () => EvalHost;
  readonly rule: string;
  readonly patternNo: number;
  readonly construct: string;
  alphaKey: string[];
  readonly hashPairs: { outer: VarLoc; slot: number }[];
  readonly joinTests: { slot: number; alts: Term[][] }[];
  readonly extraTests: Expr[];
}

/** Variables an expression reads. */
export function exprVars(e: Expr, out: Set<string> = new Set()): Set<string> {
  switch (e.k) {
    case "var":
      out.add(e.name);
      break;
    case "call":
      for (const a of e.args) exprVars(a, out);
      break;
    case "if":
      exprVars(e.cond, out);
      for (const x of [...e.thenDo, ...e.elseDo]) exprVars(x, out);
      break;
    default:
      break;
  }
  return out;
}

function termRefsOuter(t: Term, ctx: Context): boolean {
  if (t.kind === "var") return !ctx.locals.has(t.name) && ctx.outer.has(t.name);
  if (t.kind === "pred" || t.kind === "ret") {
    for (const v of exprVars(t.expr)) if (!ctx.locals.has(v) && ctx.outer.has(v)) return true;
  }
  return false;
}

function checkBound(t: Term, ctx: Context): void {
  const names = t.kind === "var" ? [t.name] : t.kind === "lit" ? [] : [...exprVars(t.expr)];
  for (const n of names) {
    if (!ctx.locals.has(n) && !ctx.outer.has(n)) {
      throw rulesLoadError(
        t.kind === "var" ? t.pos : undefined,
        `variable ?${n} is used before it is bound`,
        {
          construct: ctx.construct,
          hint: "Bind a variable in a pattern field before testing it.",
        },
      );
    }
  }
}

function exprKey(e: Expr, ctx: Context): string {
  return JSON.stringify(e, (k, v) => {
    if (k === "pos") return undefined;
    if (v && typeof v === "object" && v.k === "var") return `$${ctx.locals.get(v.name) ?? v.name}`;
    if (v && typeof v === "object" && "value" in v && !Array.isArray(v) && k === "v")
      return { value: String(v.value), t: v.constructor?.name };
    return v;
  });
}

function litKey(v: Value): string {
  return compositeKey([v]);
}

let uniqueCounter = 0;

/** Compiles a term that reads only local bindings into a value test. */
function compileLocalTerm(
  t: Term,
  ctx: Context,
  key: string[],
): (v: Value, local: Value[]) => boolean {
  const neg = t.neg;
  switch (t.kind) {
    case "lit": {
      key.push(`${neg ? "~" : ""}L${litKey(t.value)}`);
      const lit = t.value;
      return neg ? (v) => v !== lit : (v) => v === lit;
    }
    case "var": {
      const idx = ctx.locals.get(t.name) as number;
      key.push(`${neg ? "~" : ""}V${idx}`);
      return neg
        ? (v, l) => !valuesEqual(v, l[idx] as Value)
        : (v, l) => valuesEqual(v, l[idx] as Value);
    }
    case "pred":
    case "ret": {
      key.push(`${neg ? "~" : ""}${t.kind}${exprKey(t.expr, ctx)}`);
      const locals = ctx.locals;
      const fn = compileExpr(t.expr, {
        resolve: (name) => {
          const idx = locals.get(name);
          return idx === undefined ? null : (f: Frame) => (f.local as Value[])[idx] as Value;
        },
        rhs: false,
        construct: ctx.construct,
      });
      const host = ctx.host;
      const guarded = guard(fn, ctx);
      if (t.kind === "pred") {
        return (_v, local) =>
          (guarded({ tok: null, local, rhs: null, host: host() }) !== FALSE) !== neg;
      }
      return (v, local) =>
        valuesEqual(v, guarded({ tok: null, local, rhs: null, host: host() })) !== neg;
    }
  }
}

/** Wraps evaluation errors with the rule and pattern, as the issue asks. */
function guard(fn: Compiled, ctx: { rule: string; patternNo: number }): Compiled {
  return (f) => {
    try {
      return fn(f);
    } catch (e) {
      if (isKeelError(e) && e.code === "RULES_RUNTIME" && e.details.rule === undefined) {
        throw rulesRuntimeError(e.message.replace(/\.$/, ""), {
          rule: ctx.rule,
          pattern: ctx.patternNo,
          clips: e.details.clips as string | undefined,
        });
      }
      throw e;
    }
  };
}

function planField(fc: FieldConstraint, ctx: Context): FieldPlan {
  // Every field owns the slot of its position, so patterns that differ only in variable names
  // (or in which fields they bind) share one alpha node, as in CLIPS.
  const slot = ctx.nextSlot++;
  const key: string[] = [fc.multi ? "M" : "S"];
  if (fc.alts.length === 0) {
    ctx.alphaKey.push(key.join(""));
    return { multi: fc.multi, slot, check: null };
  }
  let alts = fc.alts.map((a) => a.slice());
  const lead = alts[0]?.[0];
  if (
    lead?.kind === "var" &&
    !lead.neg &&
    !ctx.locals.has(lead.name) &&
    !ctx.outer.has(lead.name)
  ) {
    ctx.locals.set(lead.name, slot);
    (alts[0] as Term[]).shift();
    if (alts.length === 1 && (alts[0] as Term[]).length === 0) alts = [];
  }
  for (const alt of alts) for (const t of alt) checkBound(t, ctx);
  const anyOuter = alts.some((alt) => alt.some((t) => termRefsOuter(t, ctx)));
  let localAlts = alts;
  if (anyOuter) {
    if (alts.length === 1) {
      const local: Term[] = [];
      const rest: Term[] = [];
      for (const t of alts[0] as Term[]) {
        if (t.kind === "var" && !t.neg && termRefsOuter(t, ctx)) {
          ctx.hashPairs.push({ outer: ctx.outer.get(t.name) as VarLoc, slot });
        } else if (termRefsOuter(t, ctx)) rest.push(t);
        else local.push(t);
      }
      if (rest.length) ctx.joinTests.push({ slot, alts: [rest] });
      localAlts = local.length ? [local] : [];
    } else {
      ctx.joinTests.push({ slot, alts });
      localAlts = [];
    }
  }
  let check: FieldPlan["check"] = null;
  if (localAlts.length) {
    const compiled = localAlts.map((alt) => {
      key.push("(");
      const terms = alt.map((t) => compileLocalTerm(t, ctx, key));
      key.push(")");
      return terms;
    });
    check = (v, local) => {
      for (const terms of compiled) {
        let ok = true;
        for (const t of terms) {
          if (!t(v, local)) {
            ok = false;
            break;
          }
        }
        if (ok) return true;
      }
      return false;
    };
  }
  ctx.alphaKey.push(key.join(""));
  return { multi: fc.multi, slot, check };
}

/** Matches a sequence of field plans against values; pushes every complete binding vector. */
function matchSequence(
  plans: FieldPlan[],
  values: readonly Value[],
  local: Value[],
  onMatch: () => boolean,
): boolean {
  const minAfter: number[] = new Array(plans.length + 1).fill(0);
  for (let i = plans.length - 1; i >= 0; i--)
    minAfter[i] = (minAfter[i + 1] as number) + ((plans[i] as FieldPlan).multi ? 0 : 1);
  const step = (pi: number, vi: number): boolean => {
    if (pi === plans.length) return vi === values.length ? onMatch() : false;
    const p = plans[pi] as FieldPlan;
    if (!p.multi) {
      if (vi >= values.length) return false;
      const v = values[vi] as Value;
      if (p.slot >= 0) local[p.slot] = v;
      if (p.check && !p.check(v, local)) return false;
      return step(pi + 1, vi + 1);
    }
    const maxLen = values.length - vi - (minAfter[pi + 1] as number);
    let any = false;
    for (let len = 0; len <= maxLen; len++) {
      const v = values.slice(vi, vi + len) as Value;
      if (p.slot >= 0) local[p.slot] = v;
      if (p.check && !p.check(v, local)) continue;
      if (step(pi + 1, vi + len)) any = true;
    }
    return any;
  };
  return step(0, 0);
}

/**
 * Compiles a pattern. Tests that read only this pattern's fields go to the alpha node; tests on
 * variables bound by earlier patterns go to the join, equality tests as hash keys.
 */
export function compilePattern(
  ce: PatternCE,
  outer: Scope,
  opts: {
    host: () => EvalHost;
    rule: string;
    patternNo: number;
    construct: string;
    /** `(test …)` CEs evaluated as part of this pattern's join, as CLIPS attaches them. */
    tests?: Expr[];
  },
): CompiledPattern {
  const ctx: Context = {
    extraTests: opts.tests ?? [],
    outer,
    locals: new Map(),
    nextSlot: 0,
    host: opts.host,
    rule: opts.rule,
    patternNo: opts.patternNo,
    construct: opts.construct,
    alphaKey: [ce.relation, ce.template ? "T" : "O"],
    hashPairs: [],
    joinTests: [],
  };
  let matcher: AlphaMatcher;
  if (!ce.template) {
    const plans = ce.fields.map((fc) => planField(fc, ctx));
    const width = () => ctx.nextSlot;
    const simple = plans.every((p) => !p.multi);
    const n = plans.length;
    const scratch: Value[] = [];
    matcher = (fact: Fact) => {
      const values = fact.values;
      if (simple) {
        if (values.length !== n) return null;
        // Test in a scratch array; allocate only for a match.
        const local = scratch;
        for (let i = 0; i < n; i++) {
          const p = plans[i] as FieldPlan;
          const v = values[i] as Value;
          if (p.slot >= 0) local[p.slot] = v;
          if (p.check && !p.check(v, local)) return null;
        }
        return [local.slice(0, width())];
      }
      const out: Value[][] = [];
      const local: Value[] = new Array(width());
      matchSequence(plans, values, local, () => {
        out.push(local.slice());
        return true;
      });
      // CLIPS hands the longest leading multifield match to the joins first.
      return out.length ? out.reverse() : null;
    };
  } else {
    const slotPlans: { index: number; multi: boolean; plans: FieldPlan[] }[] = [];
    const sorted = [...ce.slots.entries()].sort((a, b) => a[0] - b[0]);
    for (const [index, fcs] of sorted) {
      ctx.alphaKey.push(`@${index}`);
      const def = ce.template.slots[index];
      slotPlans.push({
        index,
        multi: def?.multi ?? false,
        plans: fcs.map((fc) => planField(fc, ctx)),
      });
    }
    const width = () => ctx.nextSlot;
    const singles = slotPlans.every((sp) => !sp.multi);
    const scratch: Value[] = [];
    if (singles) {
      // The common case: single slots only — test in a scratch array, allocate only for a match.
      matcher = (fact: Fact) => {
        const values = fact.values;
        for (let i = 0; i < slotPlans.length; i++) {
          const sp = slotPlans[i] as { index: number; plans: FieldPlan[] };
          const p = sp.plans[0] as FieldPlan;
          const v = values[sp.index] as Value;
          if (p.slot >= 0) scratch[p.slot] = v;
          if (p.check && !p.check(v, scratch)) return null;
        }
        return [scratch.slice(0, width())];
      };
    } else
      matcher = (fact: Fact) => {
        let results: Value[][] = [new Array(width())];
        for (const sp of slotPlans) {
          const v = fact.values[sp.index] as Value;
          const next: Value[][] = [];
          for (const local of results) {
            if (!sp.multi) {
              const p = sp.plans[0] as FieldPlan;
              if (p.slot >= 0) local[p.slot] = v;
              if (p.check && !p.check(v, local)) continue;
              next.push(local);
            } else {
              const found: Value[][] = [];
              matchSequence(sp.plans, v as Value[], local, () => {
                found.push(local.slice());
                return true;
              });
              next.push(...found.reverse());
            }
          }
          results = next;
          if (results.length === 0) return null;
        }
        return results;
      };
  }
  if (ce.addressVar) {
    if (outer.has(ce.addressVar) || ctx.locals.has(ce.addressVar)) {
      throw rulesLoadError(ce.pos, `fact-address variable ?${ce.addressVar} is already bound`, {
        construct: opts.construct,
      });
    }
    ctx.locals.set(ce.addressVar, -1);
  }
  const hashSig = ctx.hashPairs.map((h) => h.slot).join(",");
  if (ctx.alphaKey.some((k) => k.startsWith("M"))) ctx.alphaKey.push(`U${++uniqueCounter}`);
  ctx.alphaKey.push(`#${hashSig}`);
  return {
    alphaKey: ctx.alphaKey.join("|"),
    matcher,
    join: buildJoin(ctx),
    locals: ctx.locals,
  };
}

function buildJoin(ctx: Context): JoinSpec {
  const pairs = ctx.hashPairs;
  const keyParts: string[] = pairs.map((p) => `${p.outer.slot}.${p.outer.idx}=${p.slot}`);
  let leftKey: JoinSpec["leftKey"] = null;
  let rightKey: JoinSpec["rightKey"] = null;
  if (pairs.length === 1) {
    const p = pairs[0] as { outer: VarLoc; slot: number };
    const { slot: ts, idx: ti } = p.outer;
    const s = p.slot;
    leftKey =
      ti < 0
        ? (t) => (t.matches[ts] as AlphaMatch).fact
        : (t) => hashKey((t.matches[ts] as AlphaMatch).vals[ti] as Value);
    rightKey = (am) => hashKey(am.vals[s] as Value);
  } else if (pairs.length > 1) {
    leftKey = (t) =>
      compositeKey(
        pairs.map((p) => {
          const m = t.matches[p.outer.slot] as AlphaMatch;
          return p.outer.idx < 0 ? m.fact : (m.vals[p.outer.idx] as Value);
        }),
      );
    rightKey = (am) => compositeKey(pairs.map((p) => am.vals[p.slot] as Value));
  }
  let test: JoinSpec["test"] = null;
  if (ctx.joinTests.length || ctx.extraTests.length) {
    const resolve = (name: string): Compiled | null => {
      const local = ctx.locals.get(name);
      if (local !== undefined && local >= 0) return (f) => (f.local as Value[])[local] as Value;
      const o = ctx.outer.get(name);
      return o ? tokenReader(o) : null;
    };
    const fieldTests = ctx.joinTests.map((jt) => {
      keyParts.push(
        `T${jt.slot}:${JSON.stringify(jt.alts, (k, v) => (k === "pos" ? undefined : v))}`,
      );
      const alts = jt.alts.map((alt) =>
        alt.map((t) => {
          if (t.kind === "lit") {
            const lit = t.value;
            return (v: Value) => (v === lit) !== t.neg;
          }
          if (t.kind === "var") {
            const r = resolve(t.name) as Compiled;
            return (v: Value, f: Frame) => valuesEqual(v, r(f)) !== t.neg;
          }
          const fn = guard(
            compileExpr(t.expr, { resolve, rhs: false, construct: ctx.construct }),
            ctx,
          );
          if (t.kind === "pred") return (_v: Value, f: Frame) => (fn(f) !== FALSE) !== t.neg;
          return (v: Value, f: Frame) => valuesEqual(v, fn(f)) !== t.neg;
        }),
      );
      const slot = jt.slot;
      return (f: Frame) => {
        const v = (f.local as Value[])[slot] as Value;
        return alts.some((alt) => alt.every((t) => t(v, f)));
      };
    });
    for (const e of ctx.extraTests) {
      keyParts.push(`X${JSON.stringify(e, (k, v) => (k === "pos" ? undefined : v))}`);
      const fn = guard(compileExpr(e, { resolve, rhs: false, construct: ctx.construct }), ctx);
      fieldTests.push((f: Frame) => fn(f) !== FALSE);
    }
    const host = ctx.host;
    // One frame per join, refilled per test: tests never re-enter the network.
    const f: Frame = { tok: null, local: null, rhs: null, host: host() };
    const n = fieldTests.length;
    test = (t: Token, am: AlphaMatch) => {
      f.tok = t.matches;
      f.local = am.vals;
      f.host = host();
      for (let i = 0; i < n; i++) if (!(fieldTests[i] as (f: Frame) => boolean)(f)) return false;
      return true;
    };
  }
  return { key: keyParts.join(";"), leftKey, rightKey, test };
}
