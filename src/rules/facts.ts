import type { Template } from "./ast.js";
import {
  type Atom,
  ClipsFloat,
  ClipsString,
  type FactRef,
  formatFields,
  formatValue,
  isMultifield,
  type Value,
} from "./values.js";

/** A fact in working memory. Ordered facts keep their fields in `values`; template facts one value per slot. */
export class Fact implements FactRef {
  retracted = false;
  /** The network's alpha matches of this fact (rete/alpha.ts), removed on retraction. */
  matches: object[] = [];
  constructor(
    readonly factId: number,
    readonly relation: string,
    readonly template: Template | null,
    readonly values: readonly Value[],
    readonly key: string,
  ) {}

  /** `(a 1 "x")` or `(person (name bob) (tags a b))`, as CLIPS lists facts. */
  toString(): string {
    if (!this.template) {
      const fields = formatFields(this.values as Atom[]);
      return fields ? `(${this.relation} ${fields})` : `(${this.relation})`;
    }
    const slots = this.template.slots.map((s, i) => {
      const v = this.values[i] as Value;
      if (isMultifield(v)) return v.length ? `(${s.name} ${formatFields(v)})` : `(${s.name})`;
      return `(${s.name} ${formatValue(v)})`;
    });
    return slots.length ? `(${this.relation} ${slots.join(" ")})` : `(${this.relation})`;
  }
}

function keyPart(v: Value): string {
  if (typeof v === "string") return `s${v.length}:${v}`;
  if (typeof v === "number") return `i${v}`;
  if (v instanceof ClipsFloat) return `f${v.value}`;
  if (v instanceof ClipsString) return `t${v.value.length}:${v.value}`;
  if (isMultifield(v)) return `m${v.length}[${v.map(keyPart).join(",")}]`;
  return `a${(v as FactRef).factId}`;
}

/** The identity of a fact's content, for duplicate-fact suppression. */
export function factKey(relation: string, values: readonly Value[]): string {
  let key = relation;
  for (const v of values) key += ` ${keyPart(v)}`;
  return key;
}

/** A hashable key for join indexes: atoms are interned, multifields need a string. */
export function hashKey(v: Value): unknown {
  return isMultifield(v) ? keyPart(v) : v;
}

/** A key for several values at once (a join on two or more variables). */
export function compositeKey(values: readonly Value[]): string {
  let key = "";
  for (const v of values) {
    // Symbols and integers are most join keys: tag them cheaply; the rest goes through keyPart.
    if (typeof v === "string") key += `s${v}\u0000`;
    else if (typeof v === "number") key += `i${v}\u0000`;
    else key += `${keyPart(v)}\u0000`;
  }
  return key;
}
