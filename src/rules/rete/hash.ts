/**
 * Join hashes of CLIPS values, as CLIPS hashes a partial match's join values into its memories
 * (BetaMemoryHashValue): a number per value, combined over the join's variables. Equal values
 * hash equally (values are interned, see values.ts); different values rarely collide, and the
 * joins confirm a hash hit by comparing the values themselves. Hashes are kept to 30 bits, so
 * V8 stores them as small integers (no boxed numbers on the entries).
 */
import { ClipsFloat, ClipsString, type FactRef, type Value } from "../values.js";

const FLOAT_BITS = new Float64Array(1);
const FLOAT_WORDS = new Int32Array(FLOAT_BITS.buffer);

function stringHash(s: string): number {
  // FNV-1a.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}

function numberHash(n: number): number {
  if ((n | 0) === n) return n;
  FLOAT_BITS[0] = n;
  return (
    Math.imul((FLOAT_WORDS[0] as number) ^ 0x2545f491, 0x9e3779b1) ^ (FLOAT_WORDS[1] as number)
  );
}

const SMALL = 0x3fffffff;

/** The hash of one value. */
export function valueHash(v: Value): number {
  return rawHash(v) & SMALL;
}

function rawHash(v: Value): number {
  if (typeof v === "string") return stringHash(v);
  if (typeof v === "number") return numberHash(v);
  if (v instanceof ClipsString) return stringHash(v.value) ^ 0x5bd1e995;
  if (v instanceof ClipsFloat) return numberHash(v.value) ^ 0x27d4eb2f;
  if (Array.isArray(v)) {
    let h = 0x3c6ef372 ^ v.length;
    for (const x of v) h = combineHash(h, rawHash(x));
    return h;
  }
  return (v as FactRef).factId ^ 0x68e31da4;
}

/** Folds one more value's hash into a running hash (a join on several variables). */
export function combineHash(h: number, x: number): number {
  return ((Math.imul(h ^ x, 0x01000193) + 0x7f4a7c15) | 0) & SMALL;
}
