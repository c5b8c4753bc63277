/**
 * CLIPS 6.30's static check that a rule's patterns can match at all ([RULECSTR1], rulecstr.c):
 * a variable's values are narrowed by the constraints of every template slot it stands in, in
 * the order the patterns come; a field whose variable, constants and slot constraints leave no
 * value makes the rule unmatchable, and CLIPS refuses it.
 *
 * Keel checks single-field slots of deftemplate patterns (type, allowed-… and range facets,
 * constants, `~constant` and variables), object patterns' slots against the union of their
 * candidate classes' facets (object-pattern-slots.ts), multislot cardinality, and variables
 * given to system functions against the functions' declared argument types (function-types.ts).
 *
 * @example
 * // (deftemplate foo (slot x (type SYMBOL)) (slot y (type INTEGER)))
 * // (defrule r (foo (x ?x) (y ?x)) =>) fails with
 * // "[RULECSTR1] Variable ?x in CE #1 slot y\nhas constraint conflicts which make the pattern unmatchable."
 */
import type { CE, Expr, FieldConstraint, PatternCE, SlotDef, Term } from "./ast.js";
import { rulesLoadError } from "./errors.js";
import { argKind } from "./function-types.js";
import { printExpr } from "./lhs-variables.js";
import { checkMultislot, type Sizes } from "./multislot-cardinality.js";
import { returned } from "./rhs-constraints.js";
import { valueViolation } from "./template-defaults.js";
import {
  ANY,
  constantDomain,
  type Domain,
  intersect,
  isEmpty,
  slotDomain,
  typesDomain,
  without,
} from "./value-domain.js";
import { formatValue as printValue, type Value } from "./values.js";

/** What an object pattern's slot may hold: the union over the classes the pattern can match. */
export interface ObjectSlotConstraint {
  readonly domain: Domain;
  readonly slot: Pick<SlotDef, "name" | "multi" | "cardinality">;
  /** What a constant breaks of the union of the candidate slots' facets ({@link valueViolation}). */
  readonly literal: (v: Value) => string | null;
}

/**
 * The constraints of an object pattern's slots, by object-template slot index (a slot no
 * candidate class restricts is absent); supplied by the engine, which knows the classes.
 */
export type ObjectSlotLookup = (ce: PatternCE) => ReadonlyMap<number, ObjectSlotConstraint>;

/**
 * Throws CLIPS's [RULECSTR1] for the first unmatchable field of `ces` ([RULECSTR2] for a
 * numeric call no value fits); returns what each variable may hold after them. Object patterns
 * are checked only when `objectSlots` is given.
 */
export function checkRuleConstraints(
  ces: readonly CE[],
  construct: string,
  objectSlots?: ObjectSlotLookup,
): ReadonlyMap<string, Domain> {
  const vars = new Map<string, Domain>();
  const sizes = new Map<string, Sizes>();
  const counter = { n: 0 };
  // CLIPS checks each pattern's constants while it parses the rule, the conflicts after.
  let literalsOnly = true;
  const walk = (ce: CE): void => {
    switch (ce.type) {
      case "pattern":
        counter.n++;
        if (literalsOnly) checkLiterals(ce, counter.n, construct, objectSlots);
        else {
          const own = ce.object && objectSlots ? objectSlots(ce) : undefined;
          pattern(ce, counter.n, vars, sizes, construct, own);
        }
        return;
      case "test":
        counter.n++;
        if (!literalsOnly) restrictArgs(ce.expr, vars, `CE #${counter.n}`, construct);
        return;
      case "not":
        walk(ce.ce);
        return;
      case "forall":
        walk(ce.first);
        for (const c of ce.rest) walk(c);
        return;
      default:
        for (const c of ce.ces) walk(c);
    }
  };
  for (const ce of ces) walk(ce);
  literalsOnly = false;
  counter.n = 0;
  for (const ce of ces) walk(ce);
  return vars;
}

/**
 * [CSTRNCHK1] for a constant a slot's type, allowed values, allowed classes or range exclude (an
 * object pattern's slot: the union of its candidate classes' facets, when `objectSlots` is given).
 */
function checkLiterals(
  ce: PatternCE,
  n: number,
  construct: string,
  objectSlots?: ObjectSlotLookup,
): void {
  if (!ce.template || (ce.object && !objectSlots)) return;
  const objects = ce.object && objectSlots ? objectSlots(ce) : null;
  for (const [index, fields] of ce.slots) {
    const slot = ce.template.slots[index] as SlotDef;
    const object = objects?.get(index);
    if (objects !== null && object === undefined) continue;
    for (const field of fields) {
      for (const alt of field.alts) {
        for (const t of alt) {
          if (t.kind !== "lit") continue;
          const broken = object ? object.literal(t.value) : valueViolation(slot, t.value);
          if (broken === null) continue;
          throw rulesLoadError(field.pos, `slot ${slot.name} never holds ${printValue(t.value)}`, {
            construct,
            clips: `[CSTRNCHK1] A literal restriction value found in CE #${n}\n${broken} for slot ${slot.name}.`,
            echoWhole: true,
          });
        }
      }
    }
  }
}

function pattern(
  ce: PatternCE,
  n: number,
  vars: Map<string, Domain>,
  sizes: Map<string, Sizes>,
  construct: string,
  objectSlots?: ReadonlyMap<number, ObjectSlotConstraint>,
): void {
  if (!ce.template) {
    for (const [i, field] of ce.fields.entries()) {
      if (!field.multi) check(field, ANY, n, `field #${i + 1}`, vars, construct);
    }
    return;
  }
  for (const [index, fields] of ce.slots) {
    const own = ce.template.slots[index] as SlotDef;
    // An object pattern's slot: the union over its candidate classes (unknown: any value).
    const object = ce.object ? objectSlots?.get(index) : undefined;
    const slot = object?.slot ?? own;
    const field = fields[0];
    if (slot.multi) checkMultislot(fields, slot, n, sizes, construct);
    if (slot.multi || fields.length !== 1 || field === undefined || field.multi) continue;
    const base = object ? object.domain : ce.object ? ANY : slotDomain(own);
    check(field, base, n, `slot ${slot.name}`, vars, construct);
  }
}

/** Checks one single-value field against `base`, the values its slot allows. */
function check(
  field: FieldConstraint,
  base: Domain,
  n: number,
  where: string,
  vars: Map<string, Domain>,
  construct: string,
): void {
  if (field.alts.length === 0) return; // a wildcard
  if (field.alts.length === 1) {
    const terms = field.alts[0] as Term[];
    const d = narrowed(terms, base, vars);
    const lead = terms[0];
    if (isEmpty(d)) {
      const who = lead?.kind === "var" ? `Variable ?${lead.name} in CE #${n}` : `Pattern #${n}`;
      throw conflict(field, `${who} ${where}`, construct);
    }
    for (const t of terms) if (t.kind === "var" && !t.neg) vars.set(t.name, d);
    for (const t of terms) {
      if (t.kind === "pred" || t.kind === "ret")
        restrictArgs(t.expr, vars, `CE #${n} ${where}`, construct);
    }
  } else if (field.alts.every((alt) => isEmpty(narrowed(alt, base, vars)))) {
    throw conflict(field, `Pattern #${n} ${where}`, construct);
  }
}

/** What one `&` chain leaves of `base`: its variables' and constants' values, less `~` ones. */
function narrowed(terms: readonly Term[], base: Domain, vars: ReadonlyMap<string, Domain>): Domain {
  let d = base;
  for (const t of terms) {
    if (t.neg) continue;
    if (t.kind === "var") d = intersect(d, vars.get(t.name) ?? ANY);
    else if (t.kind === "lit") d = intersect(d, constantDomain(t.value));
    else if (t.kind === "ret") d = intersect(d, returned([t.expr]));
  }
  for (const t of terms) if (t.neg && t.kind === "lit") d = without(d, t.value);
  return d;
}

/**
 * [RULECSTR2] when a variable's values are none of the types a system function's argument
 * takes (function-types.ts) in a pattern's predicate or a test CE; otherwise the call narrows
 * the variable to those types.
 */
function restrictArgs(expr: Expr, vars: Map<string, Domain>, where: string, construct: string) {
  if (expr.k !== "call") return;
  for (const [i, a] of expr.args.entries()) {
    const want = expr.generic ? null : argKind(expr.fn, i);
    const d = a.k === "var" && !a.mf ? vars.get(a.name) : undefined;
    if (want !== null && a.k === "var" && d !== undefined) {
      const left = intersect(d, typesDomain(want.types));
      if (isEmpty(left)) {
        throw rulesLoadError(a.pos, `?${a.name} can never be of type ${want.name} here`, {
          construct,
          clips: `[RULECSTR2] Previous variable bindings of ?${a.name} caused the type restrictions\nfor argument #${i + 1} of the expression ${printExpr(expr)}\nfound in ${where} to be violated.`,
          echoWhole: true,
        });
      }
      vars.set(a.name, left);
    }
    restrictArgs(a, vars, where, construct);
  }
}

function conflict(field: FieldConstraint, where: string, construct: string): Error {
  return rulesLoadError(field.pos, `the rule can never match (${where})`, {
    construct,
    clips: `[RULECSTR1] ${where}\nhas constraint conflicts which make the pattern unmatchable.`,
    hint: "The slot's type, allowed values or range exclude every value the pattern allows.",
    echoWhole: true,
  });
}
