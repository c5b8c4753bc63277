import { isKeelError } from "../../core/index.js";
import type { Expr, FieldConstraint, PatternCE, Term } from "../ast.js";
import { rulesLoadError, rulesRuntimeError } from "../errors.js";
import { type Compiled, compileExpr, type EvalHost, type Frame } from "../evaluate.js";
import type { Fact } from "../facts.js";
import { compositeKey, hashKey } from "../facts.js";
import { FALSE, type Multifield, type Value, valuesEqual } from "../values.js";
import type { JoinSpec } from "./beta.js";
import type { AlphaMatch, Token } from "./memory.js";
import type { FieldRead, NodeTest, PatternStep } from "./pattern-net.js";

/**
 * Where a variable bound on the left-hand side lives: the token position of its pattern, and how
 * to read it from that pattern's fact (null: the fact itself, for `?f <- (…)`). `key` names the
 * place, so that tests reading the same places compare equal, as CLIPS compares expressions.
 */
export interface VarLoc {
  readonly slot: number;
  readonly read: FieldRead | null;
  readonly key: string;
}

export type Scope = Map<string, VarLoc>;

/** Reads a variable from a token's matches. */
export function tokenReader(loc: VarLoc): Compiled {
  const { slot, read } = loc;
  if (!read) return (f) => ((f.tok as AlphaMatch[])[slot] as AlphaMatch).fact;
  return (f) => {
    const am = (f.tok as AlphaMatch[])[slot] as AlphaMatch;
    return read(am.fact, am.marks);
  };
}

/** How a pattern binds a variable: read from its fact (null: the fact's address). */
export interface Binding {
  readonly read: FieldRead | null;
  readonly key: string;
}

/** What compiling a pattern gives: its path through the pattern tree, its join, its variables. */
export interface CompiledPattern {
  readonly steps: PatternStep[];
  readonly join: JoinSpec;
  /** Variables first bound by this pattern. */
  readonly bindings: Map<string, Binding>;
}

/**
 * A field's place in its slot in CLIPS's terms (factgen.c): which slot, its 1-based number in a
 * multifield slot, and how many single and multifield constraints come before and after it.
 * CLIPS names the value by these (from the start, from the end, or through the multifield
 * bindings), and two tests are the same test only when they read the same place.
 */
interface FieldPos {
  readonly slot: number;
  readonly inMulti: boolean;
  readonly index: number;
  readonly multi: boolean;
  readonly sfBefore: number;
  readonly sfAfter: number;
  readonly mfBefore: number;
  readonly mfAfter: number;
}

interface FieldPlan {
  readonly pos: FieldPos;
  /** Local slot holding the field's value. */
  readonly slot: number;
  /** The field's pattern-network tests, named as CLIPS's expressions would be (node identity). */
  readonly keys: string[];
  /** Test against locally bound values, or null. */
  readonly check: ((v: Value, local: Value[]) => boolean) | null;
  /** Other local slots the check reads. */
  readonly reads: number[];
  /** The field's one positive constant, which CLIPS 6.30 hashes instead of testing, or null. */
  readonly constant: { value: Value } | null;
}

interface Context {
  readonly outer: Scope;
  readonly locals: Map<string, number>;
  nextSlot: number;
  readonly host: () => EvalHost;
  readonly rule: string;
  readonly patternNo: number;
  readonly construct: string;
  readonly ordered: boolean;
  /** Per local slot: where the value sits, and how to read it. */
  readonly pos: FieldPos[];
  readonly reads: FieldRead[];
  readonly scratch: Value[];
  /** Variables bound outside the enclosing not/exists group (CLIPS does not hash on them). */
  readonly external: ReadonlySet<string>;
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

function litKey(v: Value): string {
  return compositeKey([v]);
}

/** The CLIPS getter a pattern-network expression would use for a field. */
function getterKey(p: FieldPos): string {
  if (!p.inMulti) return `g2:${p.slot}`;
  if (!p.multi && (p.mfBefore === 0 || (p.mfBefore === 1 && p.mfAfter === 0))) {
    return p.mfBefore === 0 ? `g3:${p.slot}:b${p.sfBefore}` : `g3:${p.slot}:e${p.sfAfter}`;
  }
  if (p.multi && p.mfBefore === 0 && p.mfAfter === 0) {
    return `g3:${p.slot}:m${p.sfBefore},${p.sfAfter}`;
  }
  return `g1:${p.slot}:${p.index - 1}`;
}

/** A constant comparison, named as FactGenPNConstant builds it. */
function constantKey(p: FieldPos, neg: boolean, v: Value): string {
  const eq = neg ? 0 : 1;
  if (!p.inMulti) return `k1:${p.slot}:${eq}:${litKey(v)}`;
  if (p.mfBefore === 0 || (p.mfBefore === 1 && p.mfAfter === 0)) {
    const at = p.mfBefore === 0 ? `b${p.sfBefore}` : `e${p.sfAfter}`;
    return `k2:${p.slot}:${at}:${eq}:${litKey(v)}`;
  }
  return `${neg ? "neq" : "eq"}(g1:${p.slot}:${p.index - 1},${litKey(v)})`;
}

/** A comparison with an earlier variable of the same pattern (FactPNVariableComparison). */
function variableKey(self: FieldPos, ref: FieldPos, neg: boolean): string {
  if (!self.inMulti && !ref.inMulti) return `c1:${neg ? "f" : "p"}:${self.slot},${ref.slot}`;
  return `${neg ? "neq" : "eq"}(${getterKey(self)},${getterKey(ref)})`;
}

/** An expression named structurally, its variables named by the places they read. */
function exprKey(e: Expr, varKey: (name: string) => string): string {
  switch (e.k) {
    case "const":
      return litKey(e.v);
    case "var":
      return varKey(e.name);
    case "call":
      return `${e.fn}(${e.args.map((a) => exprKey(a, varKey)).join(",")})`;
    default:
      return JSON.stringify(e, (k, v) => (k === "pos" ? undefined : v));
  }
}

/** Names a variable of a pattern test by its place: this pattern's field, or an earlier pattern's. */
function placeKey(name: string, ctx: Context): string {
  const idx = ctx.locals.get(name);
  if (idx !== undefined) return idx < 0 ? "fact" : getterKey(ctx.pos[idx] as FieldPos);
  const o = ctx.outer.get(name);
  return o ? `${o.slot}:${o.key}` : `?${name}`;
}

/** A field's value in a fact, read the way CLIPS's getter for that place reads it. */
function readerOf(p: FieldPos, ordered: boolean): FieldRead {
  const slot = p.slot;
  if (!p.inMulti) return (f) => f.values[slot] as Value;
  const arr = ordered
    ? (f: Fact) => f.values as Multifield
    : (f: Fact) => f.values[slot] as Multifield;
  if (!p.multi && p.mfBefore === 0) {
    const k = p.sfBefore;
    return (f) => arr(f)[k] as Value;
  }
  if (!p.multi && p.mfBefore === 1 && p.mfAfter === 0) {
    const k = p.sfAfter + 1;
    return (f) => {
      const a = arr(f);
      return a[a.length - k] as Value;
    };
  }
  if (p.multi && p.mfBefore === 0 && p.mfAfter === 0) {
    const b = p.sfBefore;
    const e = p.sfAfter;
    return (f) => {
      const a = arr(f);
      return a.slice(b, a.length - e);
    };
  }
  // Otherwise the place depends on how long the multifields before it came out.
  const index = p.index;
  if (p.multi) {
    return (f, marks) => {
      for (const m of marks) {
        if (m.slot === slot && m.field === index) return arr(f).slice(m.start, m.start + m.len);
      }
      return [];
    };
  }
  return (f, marks) => {
    let at = index - 1;
    for (const m of marks) if (m.slot === slot && m.field < index) at += m.len - 1;
    return arr(f)[at] as Value;
  };
}

/** Compiles a term that reads only local bindings into a value test, naming it in `keys`. */
function compileLocalTerm(
  t: Term,
  ctx: Context,
  self: FieldPos,
  keys: string[],
  reads: Set<number>,
): (v: Value, local: Value[]) => boolean {
  const neg = t.neg;
  switch (t.kind) {
    case "lit": {
      keys.push(constantKey(self, neg, t.value));
      const lit = t.value;
      return neg ? (v) => v !== lit : (v) => v === lit;
    }
    case "var": {
      const idx = ctx.locals.get(t.name) as number;
      reads.add(idx);
      keys.push(variableKey(self, ctx.pos[idx] as FieldPos, neg));
      return neg
        ? (v, l) => !valuesEqual(v, l[idx] as Value)
        : (v, l) => valuesEqual(v, l[idx] as Value);
    }
    case "pred":
    case "ret": {
      for (const name of exprVars(t.expr)) {
        const idx = ctx.locals.get(name);
        if (idx !== undefined && idx >= 0) reads.add(idx);
      }
      const body = exprKey(t.expr, (name) => placeKey(name, ctx));
      if (t.kind === "pred") keys.push(neg ? `not(${body})` : body);
      else keys.push(`${neg ? "neq" : "eq"}(${getterKey(self)},${body})`);
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

function planField(fc: FieldConstraint, ctx: Context, pos: FieldPos): FieldPlan {
  // Every field owns the slot of its position, so patterns that differ only in variable names
  // (or in which fields they bind) have one layout.
  const slot = ctx.nextSlot++;
  ctx.pos[slot] = pos;
  ctx.reads[slot] = readerOf(pos, ctx.ordered);
  const keys: string[] = [];
  const reads = new Set<number>();
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
  if (alts.length === 0) return { pos, slot, keys, check: null, reads: [], constant: null };
  for (const alt of alts) for (const t of alt) checkBound(t, ctx);
  // CLIPS 6.30 hashes a field's single positive constant (generate.c, constant selectors) and
  // then tests nothing else of that field in the pattern network.
  let constant: FieldPlan["constant"] = null;
  if (!fc.multi && alts.length === 1) {
    const lits = (alts[0] as Term[]).filter((t) => t.kind === "lit" && !t.neg);
    if (lits.length === 1) constant = { value: (lits[0] as { value: Value }).value };
  }
  const anyOuter = alts.some((alt) => alt.some((t) => termRefsOuter(t, ctx)));
  let localAlts = alts;
  if (anyOuter) {
    if (alts.length === 1) {
      const local: Term[] = [];
      const rest: Term[] = [];
      for (const t of alts[0] as Term[]) {
        // CLIPS hashes the alpha memory on a field's own variable when an earlier pattern of
        // the same not/exists group binds it; every other outer reference is a join test.
        if (
          t === lead &&
          t.kind === "var" &&
          !t.neg &&
          termRefsOuter(t, ctx) &&
          !ctx.external.has(t.name)
        ) {
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
    const altKeys: string[][] = [];
    const compiled = localAlts.map((alt) => {
      const k: string[] = [];
      altKeys.push(k);
      return alt.map((t) => compileLocalTerm(t, ctx, pos, k, reads));
    });
    if (altKeys.length === 1) keys.push(...(altKeys[0] as string[]));
    else keys.push(`or(${altKeys.map((k) => k.join("&")).join("|")})`);
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
  reads.delete(slot);
  // A later occurrence of a variable is what later references read (CLIPS binds each
  // reference to the closest occurrence before it). The values agree unless the comparison
  // was dropped with a hashed constant (see above).
  if (lead?.kind === "var" && !lead.neg && ctx.locals.has(lead.name) && alts[0]?.[0] === lead) {
    ctx.locals.set(lead.name, slot);
  }
  return { pos, slot, keys, check, reads: [...reads], constant };
}

/** A node-to-be of a pattern's path, before its identity is final. */
interface PendingStep {
  readonly kind: "sf" | "mf";
  readonly slot: number;
  readonly field: number;
  readonly leave: number;
  readonly multislot: boolean;
  readonly group: number;
  readonly keys: string[];
  readonly test: NodeTest | null;
  readonly selector: {
    readonly pre: NodeTest | null;
    readonly preKey: string;
    readonly read: FieldRead;
    readonly getter: string;
    readonly value: Value;
  } | null;
}

function both(a: NodeTest | null, b: NodeTest | null): NodeTest | null {
  if (!a) return b;
  if (!b) return a;
  return (f, m) => a(f, m) && b(f, m);
}

/** The node test of a field: reads the field and the locals its check needs, then checks. */
function fieldTest(plan: FieldPlan, ctx: Context): NodeTest | null {
  const check = plan.check;
  if (!check) return null;
  const read = ctx.reads[plan.slot] as FieldRead;
  const self = plan.slot;
  const scratch = ctx.scratch;
  const others = plan.reads.map((i) => ({ i, read: ctx.reads[i] as FieldRead }));
  if (others.length === 0) {
    return (f, m) => {
      const v = read(f, m);
      scratch[self] = v;
      return check(v, scratch);
    };
  }
  return (f, m) => {
    for (const o of others) scratch[o.i] = o.read(f, m);
    const v = read(f, m);
    scratch[self] = v;
    return check(v, scratch);
  };
}

/**
 * Plans one multifield slot (an ordered fact's fields, or a multislot) as factbld.c does: the
 * first field also checks the slot's length; a single field without a test needs no node; a
 * lone multifield needs none either, or becomes a single node if it has a test; two or more
 * multifields each get a node that tries every length.
 */
function planMultislot(
  fcs: readonly FieldConstraint[],
  slot: number,
  ctx: Context,
  group: number,
  out: PendingStep[],
): void {
  const arr = ctx.ordered
    ? (f: Fact) => f.values as Multifield
    : (f: Fact) => f.values[slot] as Multifield;
  if (fcs.length === 0) {
    out.push({
      kind: "sf",
      slot,
      field: 0,
      leave: 0,
      multislot: false,
      group: -1,
      keys: [`len:${slot}:1:0`],
      test: (f) => arr(f).length === 0,
      selector: null,
    });
    return;
  }
  const n = fcs.length;
  const mfTotal = fcs.filter((fc) => fc.multi).length;
  const sfTotal = n - mfTotal;
  let sf = 0;
  let mf = 0;
  const positions = fcs.map((fc, i) => {
    const p: FieldPos = {
      slot,
      inMulti: true,
      index: i + 1,
      multi: fc.multi,
      sfBefore: sf,
      mfBefore: mf,
      sfAfter: sfTotal - sf - (fc.multi ? 0 : 1),
      mfAfter: mfTotal - mf - (fc.multi ? 1 : 0),
    };
    if (fc.multi) mf++;
    else sf++;
    return p;
  });
  const first = positions[0] as FieldPos;
  // FactGenCheckLength: none when the slot has multifields only.
  let lenKey = "";
  let lenTest: NodeTest | null = null;
  if (first.sfAfter > 0 || !first.multi) {
    const exactly = mfTotal === 0;
    lenKey = `len:${slot}:${exactly ? 1 : 0}:${sfTotal}`;
    lenTest = exactly ? (f) => arr(f).length === sfTotal : (f) => arr(f).length >= sfTotal;
  }
  fcs.forEach((fc, i) => {
    const p = positions[i] as FieldPos;
    const plan = planField(fc, ctx, p);
    const pre = i === 0 ? lenTest : null;
    const preKey = i === 0 ? lenKey : "";
    const base = { slot, field: p.index, leave: p.sfAfter, multislot: true, group };
    if (plan.constant && !fc.multi) {
      out.push({
        ...base,
        kind: "sf",
        keys: [],
        test: null,
        selector: {
          pre,
          preKey,
          read: ctx.reads[plan.slot] as FieldRead,
          getter: getterKey(p),
          value: plan.constant.value,
        },
      });
      return;
    }
    const keys = preKey ? [preKey, ...plan.keys] : plan.keys;
    const test = both(pre, fieldTest(plan, ctx));
    if (!fc.multi || mfTotal === 1) {
      if (keys.length === 0) return;
      out.push({ ...base, kind: "sf", keys, test, selector: null });
      return;
    }
    out.push({ ...base, kind: "mf", keys, test, selector: null });
  });
}

let bareNodes = 0;

/** The final path: identities with the end-of-slot flag and, on the last node, the join hash. */
function finishSteps(pending: PendingStep[], rightHash: string): PatternStep[] {
  if (pending.length === 0) {
    // Nothing to test: the pattern enters at the relation's bare node (factbld.c keeps it). CLIPS
    // never finds such a node shareable (its field number does not compare equal), so each
    // pattern gets its own, in front of its siblings.
    return [
      {
        kind: "sf",
        slot: -1,
        field: 0,
        endSlot: false,
        leave: 0,
        multislot: false,
        key: `rel${++bareNodes}|h:${rightHash}`,
        test: null,
        selector: null,
        bare: `h:${rightHash}`,
      },
    ];
  }
  return pending.map((p, i) => {
    const next = pending[i + 1];
    const endSlot = p.group >= 0 && next?.group !== p.group;
    const h = `|h:${i === pending.length - 1 ? rightHash : ""}`;
    const where = `${p.kind}:${p.slot}:${p.field}:${endSlot ? 1 : 0}`;
    const common = {
      kind: p.kind,
      slot: p.slot,
      field: p.field,
      endSlot,
      leave: p.leave,
      multislot: p.multislot,
    };
    if (p.selector) {
      const s = p.selector;
      return {
        ...common,
        key: `${where}|sel:${s.getter}${s.preKey ? `+${s.preKey}` : ""}${h}`,
        test: null,
        selector: {
          pre: s.pre,
          read: s.read,
          value: s.value,
          valueKey: `${where}|val:${litKey(s.value)}${h}`,
        },
        bare: null,
      };
    }
    const test = p.keys.length === 1 ? p.keys[0] : `and(${p.keys.join(",")})`;
    const leave = p.kind === "mf" ? `:${p.leave}` : "";
    return {
      ...common,
      key: `${where}${leave}|${test}${h}`,
      test: p.test,
      selector: null,
      bare: null,
    };
  });
}

/**
 * Compiles a pattern. Tests that read only this pattern's fields go to the pattern network;
 * tests on variables bound by earlier patterns go to the join, equality tests as hash keys.
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
    /** Variables bound outside the enclosing not/exists group. */
    external?: ReadonlySet<string>;
  },
): CompiledPattern {
  const ordered = !ce.template;
  const ctx: Context = {
    extraTests: opts.tests ?? [],
    outer,
    locals: new Map(),
    nextSlot: 0,
    host: opts.host,
    rule: opts.rule,
    patternNo: opts.patternNo,
    construct: opts.construct,
    ordered,
    pos: [],
    reads: [],
    scratch: [],
    external: opts.external ?? new Set(),
    hashPairs: [],
    joinTests: [],
  };
  const pending: PendingStep[] = [];
  if (ordered) planMultislot(ce.fields, 0, ctx, 0, pending);
  else {
    const template = ce.template as NonNullable<PatternCE["template"]>;
    // Slots are planned in the order written (that is how CLIPS resolves variables) and
    // placed in the tree in slot order (as its pattern nodes are).
    for (const [index, fcs] of ce.slots) {
      if (template.slots[index]?.multi) {
        planMultislot(fcs, index, ctx, index, pending);
        continue;
      }
      const fc = fcs[0];
      if (!fc) continue;
      const p: FieldPos = {
        slot: index,
        inMulti: false,
        index: 0,
        multi: false,
        sfBefore: 0,
        sfAfter: 0,
        mfBefore: 0,
        mfAfter: 0,
      };
      const plan = planField(fc, ctx, p);
      const base = { slot: index, field: 0, leave: 0, multislot: false, group: -1 };
      if (plan.constant) {
        pending.push({
          ...base,
          kind: "sf",
          keys: [],
          test: null,
          selector: {
            pre: null,
            preKey: "",
            read: ctx.reads[plan.slot] as FieldRead,
            getter: getterKey(p),
            value: plan.constant.value,
          },
        });
      } else if (plan.keys.length) {
        const test = fieldTest(plan, ctx);
        pending.push({ ...base, kind: "sf", keys: plan.keys, test, selector: null });
      }
    }
  }
  if (ce.addressVar) {
    if (outer.has(ce.addressVar) || ctx.locals.has(ce.addressVar)) {
      throw rulesLoadError(ce.pos, `fact-address variable ?${ce.addressVar} is already bound`, {
        construct: opts.construct,
      });
    }
    ctx.locals.set(ce.addressVar, -1);
  }
  // The hash is part of the stop node's identity (factbld.c compares it too).
  const rightHash = ctx.hashPairs.map((h) => getterKey(ctx.pos[h.slot] as FieldPos)).join(",");
  if (!ordered) pending.sort((a, b) => a.slot - b.slot);
  const steps = finishSteps(pending, rightHash);
  const bindings = new Map<string, Binding>();
  for (const [name, idx] of ctx.locals) {
    if (idx < 0) bindings.set(name, { read: null, key: "fact" });
    else
      bindings.set(name, {
        read: ctx.reads[idx] as FieldRead,
        key: getterKey(ctx.pos[idx] as FieldPos),
      });
  }
  return { steps, join: buildJoin(ctx), bindings };
}

/** Reads a variable of an earlier pattern from a token. */
function outerRead(loc: VarLoc): (t: Token) => Value {
  const { slot, read } = loc;
  if (!read) return (t) => (t.matches[slot] as AlphaMatch).fact;
  return (t) => {
    const am = t.matches[slot] as AlphaMatch;
    return read(am.fact, am.marks);
  };
}

function buildJoin(ctx: Context): JoinSpec {
  const pairs = ctx.hashPairs;
  const place = (name: string) => placeKey(name, ctx);
  // The join's identity names what it compares by place, as CLIPS compares join expressions.
  const keyParts: string[] = pairs.map(
    (p) => `${p.outer.slot}:${p.outer.key}=${getterKey(ctx.pos[p.slot] as FieldPos)}`,
  );
  let leftKey: JoinSpec["leftKey"] = null;
  let rightKey: JoinSpec["rightKey"] = null;
  if (pairs.length === 1) {
    const p = pairs[0] as { outer: VarLoc; slot: number };
    const left = outerRead(p.outer);
    const right = ctx.reads[p.slot] as FieldRead;
    leftKey = (t) => hashKey(left(t));
    rightKey = (am) => hashKey(right(am.fact, am.marks));
  } else if (pairs.length > 1) {
    const lefts = pairs.map((p) => outerRead(p.outer));
    const rights = pairs.map((p) => ctx.reads[p.slot] as FieldRead);
    leftKey = (t) => compositeKey(lefts.map((r) => r(t)));
    rightKey = (am) => compositeKey(rights.map((r) => r(am.fact, am.marks)));
  }
  let test: JoinSpec["test"] = null;
  if (ctx.joinTests.length || ctx.extraTests.length) {
    // The alpha match under test; one per join, set before each test (tests never re-enter).
    let cur: AlphaMatch | null = null;
    const localRead = (idx: number): Compiled => {
      const read = ctx.reads[idx] as FieldRead;
      return () => read((cur as AlphaMatch).fact, (cur as AlphaMatch).marks);
    };
    const resolve = (name: string): Compiled | null => {
      const local = ctx.locals.get(name);
      if (local !== undefined && local >= 0) return localRead(local);
      const o = ctx.outer.get(name);
      return o ? tokenReader(o) : null;
    };
    const fieldTests = ctx.joinTests.map((jt) => {
      const altKeys: string[] = [];
      const alts = jt.alts.map((alt) => {
        const termKeys: string[] = [];
        const terms = alt.map((t) => {
          const neg = t.neg ? "~" : "";
          if (t.kind === "lit") {
            termKeys.push(`${neg}${litKey(t.value)}`);
            const lit = t.value;
            return (v: Value) => (v === lit) !== t.neg;
          }
          if (t.kind === "var") {
            termKeys.push(`${neg}${place(t.name)}`);
            const r = resolve(t.name) as Compiled;
            return (v: Value, f: Frame) => valuesEqual(v, r(f)) !== t.neg;
          }
          termKeys.push(`${neg}${t.kind}${exprKey(t.expr, place)}`);
          const fn = guard(
            compileExpr(t.expr, { resolve, rhs: false, construct: ctx.construct }),
            ctx,
          );
          if (t.kind === "pred") return (_v: Value, f: Frame) => (fn(f) !== FALSE) !== t.neg;
          return (v: Value, f: Frame) => valuesEqual(v, fn(f)) !== t.neg;
        });
        altKeys.push(termKeys.join("&"));
        return terms;
      });
      keyParts.push(`T${getterKey(ctx.pos[jt.slot] as FieldPos)}:${altKeys.join("|")}`);
      const value = localRead(jt.slot);
      return (f: Frame) => {
        const v = value(f);
        return alts.some((alt) => alt.every((t) => t(v, f)));
      };
    });
    for (const e of ctx.extraTests) {
      keyParts.push(`X${exprKey(e, place)}`);
      const fn = guard(compileExpr(e, { resolve, rhs: false, construct: ctx.construct }), ctx);
      fieldTests.push((f: Frame) => fn(f) !== FALSE);
    }
    const host = ctx.host;
    const f: Frame = { tok: null, local: null, rhs: null, host: host() };
    const n = fieldTests.length;
    test = (t: Token, am: AlphaMatch) => {
      f.tok = t.matches;
      cur = am;
      f.host = host();
      for (let i = 0; i < n; i++) if (!(fieldTests[i] as (f: Frame) => boolean)(f)) return false;
      return true;
    };
  }
  return { key: keyParts.join(";"), leftKey, rightKey, test };
}
