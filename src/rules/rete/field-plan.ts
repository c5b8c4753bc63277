/**
 * Plans one field of a pattern: binds its variable, splits its constraint into what the pattern
 * network tests (the field's own values), what the join tests (earlier patterns' variables) and
 * the join hash, and names the tests as CLIPS names them so identical nodes are shared.
 */
import type { FieldConstraint, Term } from "../ast.js";
import { rulesLoadError } from "../errors.js";
import { compileExpr, type Frame } from "../evaluate.js";
import { FALSE, type Value, valuesEqual } from "../values.js";
import {
  constantKey,
  exprKey,
  type FieldPos,
  getterKey,
  readerOf,
  variableKey,
} from "./field-place.js";
import { type Context, exprVars, guard, placeKey, type VarLoc } from "./pattern-context.js";

export interface FieldPlan {
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

function termRefsOuter(t: Term, ctx: Context): boolean {
  if (t.kind === "var") return isOuter(t.name, ctx);
  if (t.kind === "pred" || t.kind === "ret") {
    for (const v of exprVars(t.expr)) if (isOuter(v, ctx)) return true;
  }
  return false;
}

/** True when `name` is read from an earlier pattern (not from a field of this one). */
function isOuter(name: string, ctx: Context): boolean {
  return !ctx.locals.has(name) && !ctx.refs.has(name) && ctx.outer.has(name);
}

/** The field of this pattern a variable is read from, if any. */
function localSlot(name: string, ctx: Context): number | undefined {
  return ctx.locals.get(name) ?? ctx.refs.get(name);
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
      const idx = localSlot(t.name, ctx) as number;
      reads.add(idx);
      keys.push(variableKey(self, ctx.pos[idx] as FieldPos, neg));
      return neg
        ? (v, l) => !valuesEqual(v, l[idx] as Value)
        : (v, l) => valuesEqual(v, l[idx] as Value);
    }
    case "pred":
    case "ret": {
      for (const name of exprVars(t.expr)) {
        const idx = localSlot(name, ctx);
        if (idx !== undefined && idx >= 0) reads.add(idx);
      }
      const body = exprKey(t.expr, (name) => placeKey(name, ctx));
      if (t.kind === "pred") keys.push(neg ? `not(${body})` : body);
      else keys.push(`${neg ? "neq" : "eq"}(${getterKey(self)},${body})`);
      const fn = compileExpr(t.expr, {
        resolve: (name) => {
          const idx = localSlot(name, ctx);
          return idx === undefined ? null : (f: Frame) => (f.local as Value[])[idx] as Value;
        },
        rhs: false,
        construct: ctx.construct,
      });
      const host = ctx.host;
      const guarded = guard(fn, ctx, {
        field: ctx.ordered ? `field #${self.index}` : `slot ${ctx.slotNames[self.slot] ?? ""}`,
      });
      if (t.kind === "pred") {
        return (_v, local) =>
          (guarded({ tok: null, local, rhs: null, host: host() }) !== FALSE) !== neg;
      }
      return (v, local) =>
        valuesEqual(v, guarded({ tok: null, local, rhs: null, host: host() })) !== neg;
    }
  }
}

export function planField(fc: FieldConstraint, ctx: Context, pos: FieldPos): FieldPlan {
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
  } else if (lead?.kind === "var" && !lead.neg && alts.length > 1 && (alts[0]?.length ?? 0) > 1) {
    // A leading `?x&` bound earlier constrains the whole field, as when it binds here: CLIPS
    // reads ?x&green|blue as ?x&(green|blue), so every alternative tests it (?x|?y stays an or).
    for (const alt of alts.slice(1)) alt.unshift(lead);
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
  if (lead?.kind === "var" && !lead.neg && alts[0]?.[0] === lead) {
    // A variable bound by an earlier pattern: its next occurrence in this pattern is compared
    // with this field in the pattern network, as CLIPS compares it with its closest occurrence.
    if (ctx.locals.has(lead.name)) ctx.locals.set(lead.name, slot);
    else ctx.refs.set(lead.name, slot);
  }
  return { pos, slot, keys, check, reads: [...reads], constant };
}
