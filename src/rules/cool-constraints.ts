/**
 * A class slot's constraint facets (type, allowed-…, range, cardinality) as CLIPS 6.30 applies
 * them: a composite slot takes each attribute it does not give from the slot it inherits; a
 * slot's own default is checked against them when the class is defined, and with dynamic
 * constraint checking on, each put- checks the value it stores ([CSTRNCHK1]).
 */
import type { Expr, SlotConstraintFacets, SlotDef } from "./ast.js";
import { constraintBound } from "./slot-constraints.js";
import {
  type ClassRestricted,
  type StaticViolation,
  staticViolation,
} from "./template-defaults.js";
import { formatValue, type Value } from "./values.js";
import { slotViolation } from "./working-memory.js";

/** The constraint shape template-defaults.ts checks. */
export type CheckedSlot = Pick<
  SlotDef,
  "multi" | "types" | "allowed" | "allowedTypes" | "range" | "cardinality"
> &
  ClassRestricted;

/**
 * Whether an instance name or address designates an instance of one of `classes` or of a
 * subclass (the object system answers it: it knows the instances and classes).
 */
export type InstanceOfClasses = (v: Value, classes: readonly string[]) => boolean;

/** The types each allowed-… facet restricts (allowed-values: every type). */
const ALLOWED_TYPES: Readonly<Record<string, readonly string[] | null>> = {
  "allowed-values": null,
  "allowed-symbols": ["SYMBOL"],
  "allowed-strings": ["STRING"],
  "allowed-lexemes": ["SYMBOL", "STRING"],
  "allowed-integers": ["INTEGER"],
  "allowed-floats": ["FLOAT"],
  "allowed-numbers": ["INTEGER", "FLOAT"],
  "allowed-instance-names": ["INSTANCE-NAME"],
};

/**
 * A composite slot's constraints: each attribute it gives (`given` lists the facets it wrote),
 * the inherited slot's for the others.
 */
export function compositeConstraints(
  own: SlotConstraintFacets,
  base: SlotConstraintFacets,
  given: readonly string[],
): SlotConstraintFacets {
  const ownAllowed = given.some((g) => g.startsWith("allowed-"));
  return {
    types: given.includes("type") ? own.types : base.types,
    range: given.includes("range") ? own.range : base.range,
    cardinality: given.includes("cardinality") ? own.cardinality : base.cardinality,
    allowed: ownAllowed ? own.allowed : base.allowed,
    allowedValues: ownAllowed ? own.allowedValues : base.allowedValues,
    allowedClasses: given.includes("allowed-classes") ? own.allowedClasses : base.allowedClasses,
  };
}

/**
 * The facets in the shape template-defaults.ts's checks read; null when nothing restricts.
 * `allowed-classes` is checked only when `ofClasses` is given.
 */
export function checkedSlot(
  c: SlotConstraintFacets,
  multi: boolean,
  ofClasses?: InstanceOfClasses,
): CheckedSlot | null {
  const types = c.types === null || c.types.includes("VARIABLE") ? null : c.types;
  const checked = c.allowed.filter((a) => a in ALLOWED_TYPES);
  const allowedTypes = checked.flatMap((a) => ALLOWED_TYPES[a] ?? []);
  const everyType = checked.some((a) => ALLOWED_TYPES[a] === null);
  const range: [Value | null, Value | null] = [
    constraintBound(c.range?.[0]),
    constraintBound(c.range?.[1]),
  ];
  const low = constraintBound(c.cardinality?.[0]);
  const high = constraintBound(c.cardinality?.[1]);
  const cardinality: [number | null, number | null] = [
    typeof low === "number" ? low : null,
    typeof high === "number" ? high : null,
  ];
  const classes = c.allowedClasses;
  const classAllowed = ofClasses && classes.length > 0 ? (v: Value) => ofClasses(v, classes) : null;
  if (
    types === null &&
    checked.length === 0 &&
    c.range === null &&
    c.cardinality === null &&
    classAllowed === null
  ) {
    return null;
  }
  return {
    classAllowed,
    multi,
    types,
    allowed: checked.length > 0 ? c.allowedValues : null,
    allowedTypes: everyType ? null : allowedTypes,
    range,
    cardinality,
  };
}

/** What a slot's value breaks (cardinality first, then each field), or null. */
export const storedViolation: (slot: CheckedSlot, value: Value) => string | null = slotViolation;

/**
 * CLIPS's message for a slot default that breaks the slot's constraints: a static one names
 * its value, a dynamic one ("Expression") is checked from its expressions' kinds (constants and
 * the return types of calls). Null when it fits.
 */
export function defaultViolation(
  slot: CheckedSlot,
  name: string,
  dynamic: boolean,
  value: Value,
  exprs: readonly Expr[],
): string | null {
  if (dynamic) {
    const broken = staticViolation(slot, exprs);
    if (broken === null) return null;
    return `[CSTRNCHK1] Expression for slot ${name} found in dynamic default value\n${broken.text}.`;
  }
  const broken = storedViolation(slot, value);
  if (broken === null) return null;
  return `[CSTRNCHK1] ${formatValue(value)} for slot ${name} found in slot default value\n${broken}.`;
}

/**
 * What a handler's direct slot write (`(bind ?self:slot expr…)`) breaks of the slot's facets,
 * as CLIPS's static check finds it when the handler is read: the count of values (a single
 * slot takes one), each constant and each call's return type. Null when it fits.
 */
export function writeViolation(
  c: SlotConstraintFacets,
  multi: boolean,
  exprs: readonly Expr[],
  ofClasses: InstanceOfClasses,
): StaticViolation | null {
  const checked = checkedSlot(c, multi, ofClasses) ?? {
    multi,
    types: null,
    allowed: null,
    allowedTypes: null,
  };
  return staticViolation(checked, exprs, true);
}
