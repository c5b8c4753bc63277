/**
 * COOL's slot constraint queries (Basic Programming Guide 12.16.1.4): `slot-types`,
 * `slot-range`, `slot-cardinality`, `slot-allowed-values` and `slot-allowed-classes`, answered
 * from a class slot's constraint facets (a composite slot's already merged with its parent's).
 */
import type { SlotConstraintFacets } from "./ast.js";
import { constraintBound } from "./slot-constraints.js";
import { typeNames } from "./template-functions.js";
import { type Atom, FALSE, type Value } from "./values.js";

/** The functions this file answers. */
export const SLOT_INFO_FUNCTIONS: readonly string[] = [
  "slot-types",
  "slot-range",
  "slot-cardinality",
  "slot-allowed-values",
  "slot-allowed-classes",
];

/** What they read of a slot. */
interface InfoSlot {
  readonly multi: boolean;
  readonly facets: { readonly constraints: SlotConstraintFacets };
}

/** `(fn CLASS SLOT)` for the slot found: what CLIPS 6.30's classinf.c returns. */
export function slotInfo(fn: string, slot: InfoSlot): Value {
  const c = slot.facets.constraints;
  switch (fn) {
    case "slot-types":
      return typeNames(c.types);
    case "slot-range": {
      // A range only while a number type is allowed.
      const types = typeNames(c.types);
      if (!types.includes("FLOAT") && !types.includes("INTEGER")) return FALSE;
      return [
        constraintBound(c.range?.[0]) ?? "-oo",
        constraintBound(c.range?.[1]) ?? "+oo",
      ] as Atom[];
    }
    case "slot-cardinality":
      // A single-field slot has none: the empty multifield.
      if (!slot.multi) return [];
      return [
        constraintBound(c.cardinality?.[0]) ?? 0,
        constraintBound(c.cardinality?.[1]) ?? "+oo",
      ] as Atom[];
    case "slot-allowed-values":
      return c.allowedValues.length > 0 ? (c.allowedValues as Atom[]) : FALSE;
    default:
      return c.allowedClasses.length > 0 ? [...c.allowedClasses] : FALSE;
  }
}
