/**
 * CLIPS's check that every variable a rule's conditions read was bound before it
 * ([ANALYSIS4], analysis.c): conditional elements are numbered as CLIPS numbers them (patterns
 * and test CEs, depth first), fields from 1 after the relation name, template slots by name.
 * A variable bound inside `not`/`exists` is seen only inside it; one bound in the first CE of a
 * `forall` is seen by the rest of it.
 *
 * @example
 * // (defrule r (a) (test (> ?x 1)) =>) fails with
 * // "[ANALYSIS4] Variable ?x found in the expression (> ?x 1)\nwas referenced in CE #2 before being defined."
 */
import type { CE, Expr, FieldConstraint, PatternCE, Term } from "./ast.js";
import { rulesLoadError } from "./errors.js";
import type { SourcePos } from "./reader.js";
import { formatValue } from "./values.js";

/** Throws CLIPS's [ANALYSIS4] for the first variable read before it is bound. */
export function checkLhsVariables(ces: readonly CE[], construct: string): void {
  const counter = { n: 0 };
  walk(ces, new Set<string>(), counter, construct);
}

function walk(ces: readonly CE[], bound: Set<string>, counter: { n: number }, construct: string) {
  for (const ce of ces) one(ce, bound, counter, construct);
}

function one(ce: CE, bound: Set<string>, counter: { n: number }, construct: string): void {
  switch (ce.type) {
    case "pattern":
      counter.n++;
      pattern(ce, bound, counter.n, construct);
      return;
    case "test": {
      counter.n++;
      const v = firstUnbound(ce.expr, bound);
      if (v) fail(v, ce.expr, `CE #${counter.n}`, construct);
      return;
    }
    case "and":
      walk(ce.ces, bound, counter, construct);
      return;
    case "or": {
      // Each disjunct is checked on its own; what any of them binds is seen after the or.
      const after = new Set(bound);
      for (const d of ce.ces) {
        const inner = new Set(bound);
        one(d, inner, counter, construct);
        for (const v of inner) after.add(v);
      }
      for (const v of after) bound.add(v);
      return;
    }
    case "not":
      one(ce.ce, new Set(bound), counter, construct);
      return;
    case "exists":
      walk(ce.ces, new Set(bound), counter, construct);
      return;
    case "forall": {
      const inner = new Set(bound);
      one(ce.first, inner, counter, construct);
      walk(ce.rest, inner, counter, construct);
      return;
    }
  }
}

function pattern(ce: PatternCE, bound: Set<string>, n: number, construct: string): void {
  for (const [i, field] of ce.fields.entries()) {
    constraint(field, bound, `CE #${n} field #${i + 1}`, construct);
  }
  for (const [index, fields] of ce.slots) {
    const name = ce.template?.slots[index]?.name ?? String(index);
    for (const field of fields) constraint(field, bound, `CE #${n} slot ${name}`, construct);
  }
  if (ce.addressVar !== null) bound.add(ce.addressVar);
}

function constraint(field: FieldConstraint, bound: Set<string>, where: string, construct: string) {
  // Only a variable standing first in a field binds, and not when `|` follows it directly
  // (`?x&a|b` binds ?x, `?x|b` does not); any other one reads.
  const first = field.alts[0];
  const leads = first !== undefined && (field.alts.length === 1 || first.length > 1);
  for (const [i, alt] of field.alts.entries()) {
    for (const [j, term] of alt.entries()) {
      termCheck(term, bound, where, construct, leads && i === 0 && j === 0);
    }
  }
}

function termCheck(
  term: Term,
  bound: Set<string>,
  where: string,
  construct: string,
  binds: boolean,
) {
  if (term.kind === "lit") return;
  if (term.kind === "var") {
    if (bound.has(term.name)) return;
    if (!term.neg && binds) {
      bound.add(term.name);
      return;
    }
    throw unbound(
      term.name,
      term.pos,
      construct,
      `was referenced in ${where} before being defined.`,
    );
  }
  const v = firstUnbound(term.expr, bound);
  if (v) fail(v, term.expr, where, construct);
}

const HINT = "Bind it in a pattern on the left-hand side (or with bind before using it).";

function unbound(name: string, pos: SourcePos, construct: string, clipsTail: string) {
  return rulesLoadError(pos, `variable ?${name} is not bound`, {
    construct,
    clips: `[ANALYSIS4] Variable ?${name} ${clipsTail}`,
    hint: HINT,
  });
}

function fail(v: VarExpr, expr: Expr, where: string, construct: string): never {
  // CLIPS names the call the variable is an argument of, not the whole expression.
  const call = callHolding(expr, v) ?? expr;
  throw unbound(
    v.name,
    v.pos,
    construct,
    `found in the expression ${printExpr(call)}\nwas referenced in ${where} before being defined.`,
  );
}

/** The call in `expr` that has `v` among its own arguments, or null. */
function callHolding(expr: Expr, v: VarExpr): Expr | null {
  if (expr.k !== "call") return null;
  if (expr.args.includes(v)) return expr;
  for (const a of expr.args) {
    const found = callHolding(a, v);
    if (found) return found;
  }
  return null;
}

type VarExpr = Expr & { k: "var" };

/** The first variable of `expr` (depth first) not in `bound`, or null. */
function firstUnbound(expr: Expr, bound: ReadonlySet<string>): VarExpr | null {
  if (expr.k === "var") return bound.has(expr.name) ? null : expr;
  if (expr.k === "call") {
    for (const a of expr.args) {
      const v = firstUnbound(a, bound);
      if (v) return v;
    }
  }
  return null;
}

/** An expression as CLIPS's PrintExpression writes it. */
export function printExpr(expr: Expr): string {
  switch (expr.k) {
    case "const":
      return formatValue(expr.v);
    case "var":
      return `${expr.mf ? "$" : ""}?${expr.name}`;
    case "gvar":
      return `?*${expr.name}*`;
    case "call":
      return `(${[expr.fn, ...expr.args.map(printExpr)].join(" ")})`;
    default:
      return "(...)";
  }
}
