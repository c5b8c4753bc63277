/**
 * Where a pattern field sits in its slot, in CLIPS's terms (factgen.c), and what follows from it:
 * how CLIPS names the value (the getter and constant-test keys that decide which pattern nodes
 * and joins are shared) and how Keel reads it from a fact.
 */
import type { Expr } from "../ast.js";
import type { Fact } from "../facts.js";
import { compositeKey } from "../facts.js";
import type { Multifield, Value } from "../values.js";
import type { FieldRead } from "./pattern-net.js";

/**
 * A field's place in its slot in CLIPS's terms (factgen.c): which slot, its 1-based number in a
 * multifield slot, and how many single and multifield constraints come before and after it.
 * CLIPS names the value by these (from the start, from the end, or through the multifield
 * bindings), and two tests are the same test only when they read the same place.
 */
export interface FieldPos {
  readonly slot: number;
  readonly inMulti: boolean;
  readonly index: number;
  readonly multi: boolean;
  readonly sfBefore: number;
  readonly sfAfter: number;
  readonly mfBefore: number;
  readonly mfAfter: number;
}

export function litKey(v: Value): string {
  return compositeKey([v]);
}

/** The CLIPS getter a pattern-network expression would use for a field. */
export function getterKey(p: FieldPos): string {
  if (!p.inMulti) return `g2:${p.slot}`;
  if (!p.multi && (p.mfBefore === 0 || (p.mfBefore === 1 && p.mfAfter === 0))) {
    return p.mfBefore === 0 ? `g3:${p.slot}:b${p.sfBefore}` : `g3:${p.slot}:e${p.sfAfter}`;
  }
  if (p.multi && p.mfBefore === 0 && p.mfAfter === 0) {
    return `g3:${p.slot}:m${p.sfBefore},${p.sfAfter}`;
  }
  return `g1:${p.slot}:${p.index - 1}`;
}

/** A constant comparison, named as FactGenPNConstant builds it. */
export function constantKey(p: FieldPos, neg: boolean, v: Value): string {
  const eq = neg ? 0 : 1;
  if (!p.inMulti) return `k1:${p.slot}:${eq}:${litKey(v)}`;
  if (p.mfBefore === 0 || (p.mfBefore === 1 && p.mfAfter === 0)) {
    const at = p.mfBefore === 0 ? `b${p.sfBefore}` : `e${p.sfAfter}`;
    return `k2:${p.slot}:${at}:${eq}:${litKey(v)}`;
  }
  return `${neg ? "neq" : "eq"}(g1:${p.slot}:${p.index - 1},${litKey(v)})`;
}

/** A comparison with an earlier variable of the same pattern (FactPNVariableComparison). */
export function variableKey(self: FieldPos, ref: FieldPos, neg: boolean): string {
  if (!self.inMulti && !ref.inMulti) return `c1:${neg ? "f" : "p"}:${self.slot},${ref.slot}`;
  return `${neg ? "neq" : "eq"}(${getterKey(self)},${getterKey(ref)})`;
}

/** An expression named structurally, its variables named by the places they read. */
export function exprKey(e: Expr, varKey: (name: string) => string): string {
  switch (e.k) {
    case "const":
      return litKey(e.v);
    case "var":
      return varKey(e.name);
    case "call":
      return `${e.fn}(${e.args.map((a) => exprKey(a, varKey)).join(",")})`;
    default:
      return JSON.stringify(e, (k, v) => (k === "pos" ? undefined : v));
  }
}

/** Readers that read `fact.values[index]`, by reader: joins read (and hash) those directly. */
const directReads = new WeakMap<FieldRead, number>();

/** The index in `fact.values` a reader reads, when it reads one value at a fixed place. */
export function directIndex(read: FieldRead | null): number | undefined {
  return read ? directReads.get(read) : undefined;
}

function direct(index: number): FieldRead {
  const read: FieldRead = (f) => f.values[index] as Value;
  directReads.set(read, index);
  return read;
}

/** A field's value in a fact, read the way CLIPS's getter for that place reads it. */
export function readerOf(p: FieldPos, ordered: boolean): FieldRead {
  const slot = p.slot;
  if (!p.inMulti) return direct(slot);
  // An ordered fact's fields are its values: a field before any multifield is at a fixed place.
  if (ordered && !p.multi && p.mfBefore === 0) return direct(p.sfBefore);
  const arr = ordered
    ? (f: Fact) => f.values as Multifield
    : (f: Fact) => f.values[slot] as Multifield;
  if (!p.multi && p.mfBefore === 0) {
    const k = p.sfBefore;
    return (f) => arr(f)[k] as Value;
  }
  if (!p.multi && p.mfBefore === 1 && p.mfAfter === 0) {
    const k = p.sfAfter + 1;
    return (f) => {
      const a = arr(f);
      return a[a.length - k] as Value;
    };
  }
  if (p.multi && p.mfBefore === 0 && p.mfAfter === 0) {
    const b = p.sfBefore;
    const e = p.sfAfter;
    return (f) => {
      const a = arr(f);
      return a.slice(b, a.length - e);
    };
  }
  // Otherwise the place depends on how long the multifields before it came out.
  const index = p.index;
  if (p.multi) {
    return (f, marks) => {
      for (const m of marks) {
        if (m.slot === slot && m.field === index) return arr(f).slice(m.start, m.start + m.len);
      }
      return [];
    };
  }
  return (f, marks) => {
    let at = index - 1;
    for (const m of marks) if (m.slot === slot && m.field < index) at += m.len - 1;
    return arr(f)[at] as Value;
  };
}
