/**
 * CLIPS 6.30's check of a rule's actions against what its conditions let a variable hold
 * ([RULECSTR3], rulecstr.c CheckRHSForConstraintErrors): a variable the patterns allow no
 * number for, given to a numeric function on the right-hand side, refuses the rule. A `bind`
 * of the variable anywhere in the actions adds the values it may store.
 *
 * @example
 * // (deftemplate foo (slot x (type SYMBOL))) (defrule r (foo (x ?x)) => (+ ?x 1)) fails with
 * // "[RULECSTR3] Previous variable bindings of ?x caused the type restrictions\nfor argument #1
 * // of the expression (+ ?x 1)\nfound in the rule's RHS to be violated."
 */
import type { Expr } from "./ast.js";
import { rulesLoadError } from "./errors.js";
import { argKind, returnTypes } from "./function-types.js";
import { printExpr } from "./lhs-variables.js";
import {
  ANYTHING,
  constantDomain,
  type Domain,
  intersect,
  isEmpty,
  typesDomain,
} from "./value-domain.js";

/** Throws [RULECSTR3] for the first system function argument the variable's values never fit. */
export function checkRhsConstraints(
  actions: readonly Expr[],
  lhs: ReadonlyMap<string, Domain>,
  construct: string,
): void {
  const vars = new Map(lhs);
  // Every bind's possible values join what the conditions allow (types only).
  for (const b of binds(actions)) {
    const old = vars.get(b.name);
    if (old === undefined) vars.set(b.name, returned(b.value));
    else vars.set(b.name, typesDomain([...old.types, ...returned(b.value).types]));
  }
  for (const e of actions) visit(e, vars, construct);
}

/**
 * What the expression(s) of a bind or a `=(…)` constraint may return, as far as Keel knows: a
 * constant's type, a system function's declared return types (function-types.ts), else anything.
 */
export function returned(value: readonly Expr[]): Domain {
  const only = value.length === 1 ? value[0] : undefined;
  if (only?.k === "const") return constantDomain(only.v);
  if (only?.k === "call" && !only.generic) {
    const types = returnTypes(only.fn);
    if (types !== null) return typesDomain(types);
  }
  return ANYTHING;
}

function visit(e: Expr, vars: ReadonlyMap<string, Domain>, construct: string): void {
  if (e.k === "call" && !e.generic) {
    for (const [i, a] of e.args.entries()) {
      const want = argKind(e.fn, i);
      const d = a.k === "var" && !a.mf ? vars.get(a.name) : undefined;
      if (want === null || a.k !== "var" || d === undefined) continue;
      if (!isEmpty(intersect(d, typesDomain(want.types)))) continue;
      throw rulesLoadError(a.pos, `?${a.name} can never be a number here`, {
        construct,
        clips: `[RULECSTR3] Previous variable bindings of ?${a.name} caused the type restrictions\nfor argument #${i + 1} of the expression ${printExpr(e)}\nfound in the rule's RHS to be violated.`,
        echoWhole: true,
      });
    }
  }
  for (const child of children(e)) visit(child, vars, construct);
}

type Bind = Expr & { k: "bind" };

function binds(actions: readonly Expr[]): Bind[] {
  const out: Bind[] = [];
  const walk = (e: Expr) => {
    if (e.k === "bind" && !e.global) out.push(e);
    children(e).forEach(walk);
  };
  actions.forEach(walk);
  return out;
}

/** The expressions directly inside `e`, also those in facts it asserts (any kind). */
function children(e: Expr): Expr[] {
  const out: Expr[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (Array.isArray(v)) {
      for (const x of v) collect(x, depth);
    } else if (isExpr(v) && depth > 0) {
      out.push(v);
    } else if (typeof v === "object" && v !== null && !isTemplate(v)) {
      for (const x of Object.values(v)) collect(x, depth + 1);
    }
  };
  collect(e, 0);
  return out;
}

/** A fact spec's deftemplate: no expressions in it. */
function isTemplate(v: object): boolean {
  return "slotIndex" in v;
}

function isExpr(x: unknown): x is Expr {
  return typeof x === "object" && x !== null && typeof (x as { k?: unknown }).k === "string";
}
