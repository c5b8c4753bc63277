/**
 * What an object pattern's slots may hold, for CLIPS 6.30's static constraint check of rules
 * (objrtbld.c ProcessSlotRestriction): the classes the pattern can match are every class
 * defined when the rule is (the `is-a` restriction narrows them to those classes and their
 * subclasses); each slot the pattern names keeps only the classes that have it, and its
 * constraint is the union of those classes' slot facets.
 *
 * @example
 * // (defclass FOO (is-a USER) (slot x (type SYMBOL)) (slot y (type INTEGER)))
 * // (object (is-a FOO) (x ?x) (y ?x)): ?x may be a SYMBOL, then slot y leaves it nothing.
 */
import type { PatternCE } from "./ast.js";
import { type CheckedSlot, checkedSlot, type InstanceOfClasses } from "./cool-constraints.js";
import { type ClassDef, isClassEntry } from "./objects.js";
import type { ObjectSlotConstraint, ObjectSlotLookup } from "./rule-constraints.js";
import { type ValueConstraints, valueViolation } from "./template-defaults.js";
import { ANY, type Domain, slotDomain, union } from "./value-domain.js";
import type { Value } from "./values.js";

/**
 * The classes of `all` an object pattern can match (objrtbld.c's class bitmap): the reactive
 * concrete ones, of the `is-a` classes or below (null: any), having each slot named,
 * pattern-matched.
 */
export function candidateClasses(
  all: readonly ClassDef[],
  isa: readonly string[] | null,
  slots: readonly string[],
): ClassDef[] {
  return all.filter(
    (c) =>
      c.reactive &&
      !c.abstract &&
      (isa === null || c.cpl.some((k) => isa.some((e) => isClassEntry(k, e)))) &&
      slots.every((name) => c.slots.some((x) => x.name === name && x.facets.reactive)),
  );
}

/**
 * A lookup over the classes `classes()` lists when a rule is checked (`ofClasses` answers their
 * allowed-classes facets).
 */
export function objectSlotLookup(
  classes: () => readonly ClassDef[],
  ofClasses: InstanceOfClasses,
): ObjectSlotLookup {
  return (ce) => objectSlots(ce, classes(), ofClasses);
}

/**
 * What a constant breaks of the union of `slots`' facets (CLIPS's UnionConstraints, then
 * ConstraintCheckValue): a facet is broken when every slot's own is, checked in CLIPS's order
 * (type, allowed values, allowed classes, range). A slot with no facets takes any value.
 */
function unionViolation(slots: readonly (CheckedSlot | null)[], v: Value): string | null {
  if (slots.some((c) => c === null)) return null;
  const checked = slots as readonly CheckedSlot[];
  const none = { types: null, allowed: null };
  const facets: ((c: CheckedSlot) => ValueConstraints)[] = [
    (c) => ({ ...none, types: c.types }),
    (c) => ({ ...none, allowed: c.allowed, allowedTypes: c.allowedTypes }),
    (c) => ({ ...none, classAllowed: c.classAllowed ?? null }),
    (c) => ({ ...none, range: c.range }),
  ];
  for (const facet of facets) {
    const broken = checked.map((c) => valueViolation(facet(c), v));
    if (broken.every((b) => b !== null)) return broken[0] ?? null;
  }
  return null;
}

function objectSlots(
  ce: PatternCE,
  all: readonly ClassDef[],
  ofClasses: InstanceOfClasses,
): ReadonlyMap<number, ObjectSlotConstraint> {
  const out = new Map<number, ObjectSlotConstraint>();
  const isa = ce.object?.classes ?? null;
  let candidates =
    isa === null ? all : all.filter((c) => c.cpl.some((k) => isa.some((e) => isClassEntry(k, e))));
  for (const index of ce.slots.keys()) {
    const name = ce.template?.slots[index]?.name;
    if (name === undefined || name === "is-a" || name === "name") continue;
    // CLIPS drops, slot by slot, the classes that lack a (pattern-matched) slot of that name.
    const having = candidates.flatMap((c) => {
      const s = c.slots.find((x) => x.name === name);
      return s?.facets.reactive ? [s] : [];
    });
    candidates = candidates.filter((c) =>
      c.slots.some((x) => x.name === name && x.facets.reactive),
    );
    let domain: Domain | null = null;
    let multi = false;
    let low = Number.POSITIVE_INFINITY;
    let high = 0;
    const facets: (CheckedSlot | null)[] = [];
    for (const s of having) {
      const checked = checkedSlot(s.facets.constraints, s.multi, ofClasses);
      facets.push(checked);
      const d = checked ? slotDomain(checked) : ANY;
      domain = domain === null ? d : union(domain, d);
      multi ||= s.multi;
      const [min, max] = s.multi ? (checked?.cardinality ?? [null, null]) : [1, 1];
      low = Math.min(low, min ?? 0);
      high = Math.max(high, max ?? Number.POSITIVE_INFINITY);
    }
    if (domain === null) continue;
    const cardinality = [low, high === Number.POSITIVE_INFINITY ? null : high] as const;
    const literal = (v: Value) => unionViolation(facets, v);
    out.set(index, { domain, slot: { name, multi, cardinality }, literal });
  }
  return out;
}
