/**
 * The values a single field may still hold, as CLIPS 6.30's constraint records (constrnt.c,
 * cstrnops.c) narrow them for its static check of a rule's variables: the primitive types left,
 * per type an optional finite set of allowed values, and a numeric range. Intersection only:
 * CLIPS unions records for `|` too, but Keel only asks whether every alternative is empty.
 */
import type { SlotDef } from "./ast.js";
import { typeOk } from "./slot-types.js";
import { isMultifield, isNumber, numberOf, type Value, valuesEqual } from "./values.js";

const PRIMITIVES = [
  "SYMBOL",
  "STRING",
  "INTEGER",
  "FLOAT",
  "INSTANCE-NAME",
  "INSTANCE-ADDRESS",
  "FACT-ADDRESS",
  "EXTERNAL-ADDRESS",
] as const;

const EXPANDS: Readonly<Record<string, readonly string[]>> = {
  LEXEME: ["SYMBOL", "STRING"],
  NUMBER: ["INTEGER", "FLOAT"],
  INSTANCE: ["INSTANCE-NAME", "INSTANCE-ADDRESS"],
  ADDRESS: ["INSTANCE-ADDRESS", "FACT-ADDRESS", "EXTERNAL-ADDRESS"],
};

export interface Domain {
  readonly types: ReadonlySet<string>;
  /** Types whose values are only these (an allowed-… facet or a constant). */
  readonly finite: ReadonlyMap<string, readonly Value[]>;
  readonly low: number;
  readonly high: number;
}

/** Any value. */
export const ANY: Domain = {
  types: new Set(PRIMITIVES),
  finite: new Map(),
  low: Number.NEGATIVE_INFINITY,
  high: Number.POSITIVE_INFINITY,
};

/** Any value at all: a single field of any type, a multifield, or no value. */
export const ANYTHING: Domain = { ...ANY, types: new Set([...PRIMITIVES, "MULTIFIELD", "VOID"]) };

/** Any value of these types (primitive names, `MULTIFIELD`, `VOID`). */
export function typesDomain(types: Iterable<string>): Domain {
  return { ...ANY, types: new Set(types) };
}

function primitives(words: readonly string[] | null | undefined): Set<string> {
  if (!words || words.includes("?VARIABLE")) return new Set(PRIMITIVES);
  return new Set(words.flatMap((w) => EXPANDS[w] ?? [w]));
}

/** The type of a constant, as one of the primitives (`MULTIFIELD` for a multifield). */
export function valueType(v: Value): string {
  return isMultifield(v) ? "MULTIFIELD" : typeOf(v);
}

/** The type of a constant, as one of the primitives. */
function typeOf(v: Value): string {
  return PRIMITIVES.find((t) => typeOk(v, [t])) ?? "EXTERNAL-ADDRESS";
}

/** What a slot's type, allowed-… and range facets let it hold. */
export function slotDomain(
  slot: Pick<SlotDef, "types" | "allowed" | "allowedTypes" | "range">,
): Domain {
  const finite = new Map<string, Value[]>();
  if (slot.allowed) {
    for (const t of primitives(slot.allowedTypes)) {
      finite.set(
        t,
        slot.allowed.filter((v) => typeOf(v) === t),
      );
    }
  }
  const [low, high] = slot.range ?? [null, null];
  return {
    types: primitives(slot.types),
    finite,
    low: low !== null && isNumber(low) ? numberOf(low) : Number.NEGATIVE_INFINITY,
    high: high !== null && isNumber(high) ? numberOf(high) : Number.POSITIVE_INFINITY,
  };
}

/** Just the constant `v`. */
export function constantDomain(v: Value): Domain {
  const t = typeOf(v);
  return { ...ANY, types: new Set([t]), finite: new Map([[t, [v]]]) };
}

/** The values both allow. */
export function intersect(a: Domain, b: Domain): Domain {
  const types = new Set([...a.types].filter((t) => b.types.has(t)));
  const finite = new Map<string, readonly Value[]>();
  for (const t of types) {
    const x = a.finite.get(t);
    const y = b.finite.get(t);
    if (x && y)
      finite.set(
        t,
        x.filter((v) => y.some((w) => valuesEqual(v, w))),
      );
    else if (x || y) finite.set(t, (x ?? y) as readonly Value[]);
  }
  return { types, finite, low: Math.max(a.low, b.low), high: Math.min(a.high, b.high) };
}

/**
 * The values either allows (CLIPS's UnionConstraints, for an object pattern's slot that several
 * classes define): a type is finite only where every side holding it is; the range is the hull
 * of the ranges of the sides that hold a number.
 */
export function union(a: Domain, b: Domain): Domain {
  const types = new Set([...a.types, ...b.types]);
  const finite = new Map<string, readonly Value[]>();
  for (const t of types) {
    const x = a.types.has(t) ? a.finite.get(t) : [];
    const y = b.types.has(t) ? b.finite.get(t) : [];
    if (x && y) finite.set(t, [...x, ...y.filter((v) => !x.some((w) => valuesEqual(v, w)))]);
  }
  const numeric = (d: Domain) => d.types.has("INTEGER") || d.types.has("FLOAT");
  const sides = [a, b].filter(numeric);
  const low = Math.min(...sides.map((d) => d.low));
  const high = Math.max(...sides.map((d) => d.high));
  return {
    types,
    finite,
    low: sides.length > 0 ? low : ANY.low,
    high: sides.length > 0 ? high : ANY.high,
  };
}

/** `d` without the constant `v` (a `~v` term): only a finite set of its type loses it. */
export function without(d: Domain, v: Value): Domain {
  const t = typeOf(v);
  const values = d.finite.get(t);
  if (!values) return d;
  const finite = new Map(d.finite);
  finite.set(
    t,
    values.filter((w) => !valuesEqual(v, w)),
  );
  return { ...d, finite };
}

/** Whether no value is left. */
export function isEmpty(d: Domain): boolean {
  for (const t of d.types) {
    const numeric = t === "INTEGER" || t === "FLOAT";
    const inRange = (v: Value) => !isNumber(v) || (numberOf(v) >= d.low && numberOf(v) <= d.high);
    const values = d.finite.get(t);
    if (values) {
      if (values.some(inRange)) return false;
    } else if (!numeric) {
      return false;
    } else if (t === "FLOAT" ? d.low <= d.high : Math.ceil(d.low) <= Math.floor(d.high)) {
      return false;
    }
  }
  return true;
}
