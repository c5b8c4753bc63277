/**
 * CLIPS 6.30's conflict resolution strategies (crstrtgy.c): where, among activations of the same
 * salience, a new activation goes. Every strategy here is a total order, so placing by walking
 * from the head of the salience group gives CLIPS's place.
 */
import type { CE, Expr, FieldConstraint } from "./ast.js";
import { matchesOf, type Token } from "./rete/memory.js";

/** What placing reads of an activation (agenda.ts's Placed has these fields). */
export interface Placed {
  readonly rule: {
    readonly display: readonly ("fact" | "star" | "none")[];
    readonly leadingTest?: boolean;
    readonly complexity?: number;
  };
  readonly token: Token;
  readonly timetag: number;
  basis?: number[];
  randomId?: number;
}

/** The strategies `set-strategy` accepts. */
export const STRATEGIES = [
  "depth",
  "breadth",
  "lex",
  "mea",
  "complexity",
  "simplicity",
  "random",
] as const;

export type Strategy = (typeof STRATEGIES)[number];

export function isStrategy(name: unknown): name is Strategy {
  return typeof name === "string" && (STRATEGIES as readonly string[]).includes(name);
}

/** True when `added` goes after `existing` (same salience) under `strategy`. */
export function goesAfter(existing: Placed, added: Placed, strategy: Strategy): boolean {
  switch (strategy) {
    case "depth":
      return added.timetag < existing.timetag;
    case "breadth":
      return added.timetag > existing.timetag;
    case "lex":
      return afterOnTie(comparePartialMatches(existing, added), existing, added);
    case "mea":
      return afterOnTie(compareMea(existing, added), existing, added);
    case "complexity":
      return byNumber(existing.rule.complexity ?? 0, added.rule.complexity ?? 0, existing, added);
    case "simplicity":
      return byNumber(added.rule.complexity ?? 0, existing.rule.complexity ?? 0, existing, added);
    case "random":
      return byNumber(added.randomId ?? 0, existing.randomId ?? 0, existing, added);
  }
}

/** `first` > `second` puts the new activation after; equal: the older activation first. */
function byNumber(first: number, second: number, existing: Placed, added: Placed): boolean {
  if (first !== second) return first > second;
  return added.timetag > existing.timetag;
}

/** -1: the new activation is less recent (goes after); 1: more recent (goes before); 0: tie. */
type Order = -1 | 0 | 1;

function afterOnTie(order: Order, existing: Placed, added: Placed): boolean {
  if (order !== 0) return order < 0;
  return added.timetag > existing.timetag;
}

/**
 * The timetags of the facts an activation matched, most recent first (0 for a not CE or the
 * pattern-less first join). Fact indexes stand in for timetags: both grow with every assert.
 */
function basis(a: Placed): number[] {
  if (a.basis) return a.basis;
  const out: number[] = a.rule.leadingTest ? [0] : [];
  const matches = matchesOf(a.token, a.rule.display.length);
  a.rule.display.forEach((d, i) => {
    if (d === "none") return;
    const m = matches[i];
    out.push(d === "fact" && m ? m.fact.factId + 1 : 0);
  });
  out.sort((x, y) => y - x);
  a.basis = out;
  return out;
}

/** ComparePartialMatches: recency of the sorted timetags, then more matches, then complexity. */
function comparePartialMatches(existing: Placed, added: Placed): Order {
  const b1 = basis(added);
  const b2 = basis(existing);
  const n = Math.min(b1.length, b2.length);
  for (let i = 0; i < n; i++) {
    const x = b1[i] as number;
    const y = b2[i] as number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  if (b1.length !== b2.length) return b1.length < b2.length ? -1 : 1;
  const c1 = added.rule.complexity ?? 0;
  const c2 = existing.rule.complexity ?? 0;
  if (c1 !== c2) return c1 < c2 ? -1 : 1;
  return 0;
}

/** The timetag of the first pattern's fact, or -1 (PlaceMEAPlaced's `whoset`). */
function firstTimetag(a: Placed): number {
  const d = a.rule.leadingTest ? "star" : a.rule.display[0];
  const m = matchesOf(a.token, 1)[0];
  return !a.rule.leadingTest && d === "fact" && m ? m.fact.factId + 1 : -1;
}

function compareMea(existing: Placed, added: Placed): Order {
  const c = firstTimetag(added);
  const o = firstTimetag(existing);
  if (o < c) return c > 0 ? 1 : -1;
  if (o > c) return o > 0 ? -1 : 1;
  return comparePartialMatches(existing, added);
}

/**
 * A rule's complexity as CLIPS counts it (rulepsr.c RuleComplexity): one per pattern plus one
 * per test the pattern and join networks make. Keel counts the tests from the constraints: a
 * constant, a predicate, a return value, a repeated variable, a test CE each add one.
 */
export function ruleComplexity(ces: readonly CE[]): number {
  const seen = new Set<string>();
  let n = 0;
  const field = (c: FieldConstraint): void => {
    for (const alt of c.alts) {
      for (const t of alt) {
        if (t.kind === "var") {
          if (seen.has(t.name) || t.neg) n++;
          else seen.add(t.name);
        } else if (t.kind === "lit") n++;
        else n += exprComplexity(t.expr);
      }
    }
  };
  const walk = (ce: CE): void => {
    switch (ce.type) {
      case "pattern":
        n++;
        for (const f of ce.fields) field(f);
        for (const fs of ce.slots.values()) for (const f of fs) field(f);
        return;
      case "test":
        n += exprComplexity(ce.expr);
        return;
      case "not":
        walk(ce.ce);
        return;
      case "and":
      case "or":
      case "exists":
        for (const c of ce.ces) walk(c);
        return;
      case "forall":
        walk(ce.first);
        for (const c of ce.rest) walk(c);
        return;
    }
  };
  for (const ce of ces) walk(ce);
  // A rule that does not start with a pattern has CLIPS's pattern-less first join: one more.
  const first = ces[0]?.type;
  if (first === "test" || first === "not" || first === "exists" || first === "forall") n++;
  return n;
}

/** ExpressionComplexity: a call counts one, except and/or/not, whose arguments count instead. */
function exprComplexity(e: Expr): number {
  if (e.k !== "call") return 0;
  if (e.fn === "and" || e.fn === "or" || e.fn === "not") {
    let n = 0;
    for (const a of e.args) n += exprComplexity(a);
    return n;
  }
  return 1;
}
