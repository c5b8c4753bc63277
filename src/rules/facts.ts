import type { Template } from "./ast.js";
import type { ChainEntry } from "./rete/chains.js";
import { combineHash, valueHash } from "./rete/hash.js";
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
export class Fact implements FactRef, ChainEntry<Fact> {
  retracted = false;
  /** The network's alpha matches of this fact (rete/memory.ts), removed on retraction. */
  matches: object[] = [];
  next: Fact | null = null;
  prev: Fact | null = null;
  constructor(
    readonly factId: number,
    readonly relation: string,
    readonly template: Template | null,
    readonly values: readonly Value[],
    /** The join hashes of the values (rete/hash.ts): every token built on the fact reads them. */
    readonly hashes: readonly number[],
    /** The hash of the relation and values ({@link contentHash}): working memory's table. */
    readonly hash: number,
  ) {}

  /** How an activation lists the fact: `f-3` (an instance: `[name]`). */
  label(): string {
    return `f-${this.factId}`;
  }

  /** What `?f <- (pattern)` binds: the fact (an instance's pattern: the instance). */
  address(): Value {
    return this;
  }

  /** True when the fact holds exactly these values (CLIPS's duplicate-fact check). */
  holds(relation: string, values: readonly Value[]): boolean {
    if (relation !== this.relation || values.length !== this.values.length) return false;
    for (let i = 0; i < values.length; i++) {
      if (!sameValue(values[i] as Value, this.values[i] as Value)) return false;
    }
    return true;
  }

  /** `(a 1 "x")` or `(person (name bob) (tags a b))`, as CLIPS lists facts. */
  toString(): string {
    if (!this.template) {
      const fields = formatFields(this.values as Atom[]);
      // The relation of a fact outside MAIN is its implied deftemplate's key: print the name.
      const at = this.relation.indexOf("::");
      const name = at > 0 ? this.relation.slice(at + 2) : this.relation;
      return fields ? `(${name} ${fields})` : `(${name})`;
    }
    const slots = this.template.slots.map((s, i) => {
      const v = this.values[i] as Value;
      if (isMultifield(v)) return v.length ? `(${s.name} ${formatFields(v)})` : `(${s.name})`;
      return `(${s.name} ${formatValue(v)})`;
    });
    // A template fact prints its template's name: the relation of one outside MAIN is its key.
    const name = this.template.name;
    return slots.length ? `(${name} ${slots.join(" ")})` : `(${name})`;
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

/** The join hashes of a fact's values. */
export function valueHashes(values: readonly Value[]): number[] {
  // Pushed, not mapped: a packed array whatever tier runs this (see templateValues).
  const hashes: number[] = [];
  for (let i = 0; i < values.length; i++) hashes.push(valueHash(values[i] as Value));
  return hashes;
}

/** The hash of a fact's content from its relation and its values' hashes. */
export function contentHash(relation: string, hashes: readonly number[]): number {
  let h = valueHash(relation);
  for (let i = 0; i < hashes.length; i++) h = combineHash(h, hashes[i] as number);
  return h;
}

/** Equal as fact content: atoms identical, fact addresses the same index, multifields alike. */
function sameValue(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i] as Value, b[i] as Value)) return false;
    return true;
  }
  return (
    typeof a === "object" &&
    typeof b === "object" &&
    "factId" in a &&
    "factId" in b &&
    a.factId === b.factId
  );
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
