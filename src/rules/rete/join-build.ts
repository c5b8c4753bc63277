/**
 * A pattern's join: the hash of the variables it shares with earlier patterns (CLIPS's
 * leftHash/rightHash), the comparison that confirms a hash hit, and the remaining join tests,
 * compiled from a pattern's compile context.
 */
import { type Compiled, compileExpr, type Frame } from "../evaluate.js";
import { FALSE, type Value, valuesEqual } from "../values.js";
import type { JoinPart, JoinSpec } from "./beta.js";
import { directTests } from "./direct-tests.js";
import { directIndex, exprKey, type FieldPos, getterKey, litKey } from "./field-place.js";
import { combineHash, valueHash } from "./hash.js";
import { type AlphaMatch, matchAt, type Token } from "./memory.js";
import { type Context, guard, placeKey, tokenReader, type VarLoc } from "./pattern-context.js";
import type { FieldRead } from "./pattern-net.js";

/** Reads a variable of an earlier pattern from a token. */
export function outerRead(loc: VarLoc): (t: Token) => Value {
  const { slot, read } = loc;
  if (!read) return (t) => (matchAt(t, slot) as AlphaMatch).fact.address();
  return (t) => {
    const am = matchAt(t, slot) as AlphaMatch;
    return read(am.fact, am.marks);
  };
}

export function buildJoin(ctx: Context): JoinSpec {
  const pairs = ctx.hashPairs;
  const place = (name: string) => placeKey(name, ctx);
  // The join's identity names what it compares by place, as CLIPS compares join expressions.
  const keyParts: string[] = pairs.map(
    (p) => `${p.outer.slot}:${p.outer.key}=${getterKey(ctx.pos[p.slot] as FieldPos)}`,
  );
  const { leftHash, rightHash, keyEq } = hashJoin(
    pairs.map((p) => p.outer),
    pairs.map((p) => ctx.reads[p.slot] as FieldRead),
  );
  let test: JoinSpec["test"] = null;
  if (ctx.joinTests.length || ctx.extraTests.length) {
    // The alpha match under test; one per join, set before each test (tests never re-enter).
    let cur: AlphaMatch | null = null;
    const localRead = (idx: number): Compiled => {
      const read = ctx.reads[idx] as FieldRead;
      return () => read((cur as AlphaMatch).fact, (cur as AlphaMatch).marks);
    };
    const resolve = (name: string): Compiled | null => {
      const local = ctx.locals.get(name);
      if (local !== undefined && local >= 0) return localRead(local);
      const o = ctx.outer.get(name);
      return o ? tokenReader(o) : null;
    };
    const fieldTests = ctx.joinTests.map((jt) => {
      const altKeys: string[] = [];
      const alts = jt.alts.map((alt) => {
        const termKeys: string[] = [];
        const terms = alt.map((t): TermTest => {
          const neg = t.neg ? "~" : "";
          if (t.kind === "lit") {
            termKeys.push(`${neg}${litKey(t.value)}`);
            const lit = t.value;
            return (v: Value) => (v === lit) !== t.neg;
          }
          if (t.kind === "var") {
            termKeys.push(`${neg}${place(t.name)}`);
            const r = resolve(t.name) as Compiled;
            return (v: Value, f: Frame) => valuesEqual(v, r(f)) !== t.neg;
          }
          termKeys.push(`${neg}${t.kind}${exprKey(t.expr, place)}`);
          const fn = guard(
            compileExpr(t.expr, { resolve, rhs: false, construct: ctx.construct }),
            ctx,
          );
          if (t.kind === "pred") return (_v: Value, f: Frame) => (fn(f) !== FALSE) !== t.neg;
          return (v: Value, f: Frame) => valuesEqual(v, fn(f)) !== t.neg;
        });
        altKeys.push(termKeys.join("&"));
        return terms;
      });
      keyParts.push(`T${getterKey(ctx.pos[jt.slot] as FieldPos)}:${altKeys.join("|")}`);
      const value = localRead(jt.slot);
      const only = alts.length === 1 && alts[0]?.length === 1 ? (alts[0][0] as TermTest) : null;
      if (only) return (f: Frame) => only(value(f), f);
      return (f: Frame) => anyAlternative(alts, value(f), f);
    });
    for (const e of ctx.extraTests) {
      keyParts.push(`X${exprKey(e, place)}`);
      const fn = guard(compileExpr(e, { resolve, rhs: false, construct: ctx.construct }), ctx);
      fieldTests.push((f: Frame) => fn(f) !== FALSE);
    }
    const host = ctx.host;
    const f: Frame = { tok: null, local: null, rhs: null, host: host() };
    const n = fieldTests.length;
    test = (t: Token, am: AlphaMatch) => {
      f.tok = t;
      cur = am;
      f.host = host();
      for (let i = 0; i < n; i++) if (!(fieldTests[i] as (f: Frame) => boolean)(f)) return false;
      return true;
    };
    // Tests of single values at fixed places skip the frame (the key above stays the same).
    test = directTests(ctx) ?? test;
  }
  const clipsHash = pairs.length
    ? clipsHashOf(
        pairs.map((p) => p.outer),
        true,
      )
    : null;
  const parts = pairs.map((p) => {
    const read = ctx.reads[p.slot] as FieldRead;
    const at = directIndex(read);
    const rightHash =
      at === undefined
        ? (am: AlphaMatch) => valueHash(read(am.fact, am.marks))
        : (am: AlphaMatch) => am.hashes[at] as number;
    return { place: `${p.outer.slot}:${p.outer.key}`, rightHash };
  });
  return { key: keyParts.join(";"), leftHash, rightHash, keyEq, test, clipsHash, parts };
}

/**
 * A match's hash by the pairs `by` (a parent join's), read with `spec`'s own pairs, or null when
 * `spec` does not compare every value `by` does: a token joining the match hashes to it in the
 * parent's memory. Folded as {@link hashJoin} folds a token's hash, in the pairs' order.
 */
export function hashByParts(
  by: readonly JoinPart[],
  spec: JoinSpec,
): ((am: AlphaMatch) => number) | null {
  const own = spec.parts ?? [];
  const reads: ((am: AlphaMatch) => number)[] = [];
  for (const part of by) {
    const same = own.find((o) => o.place === part.place);
    if (!same) return null;
    reads.push(same.rightHash);
  }
  const n = reads.length;
  if (n === 0) return null;
  const first = reads[0] as (am: AlphaMatch) => number;
  if (n === 1) return first;
  return (am) => {
    let h = first(am);
    for (let i = 1; i < n; i++) h = combineHash(h, (reads[i] as (am: AlphaMatch) => number)(am));
    return h;
  };
}

/**
 * CLIPS's hash values of a token at a join comparing `locs` (see JoinSpec.clipsHash): a
 * pattern's join lists them last field first, a join from the right in the group's order.
 */
export function clipsHashOf(
  locs: readonly VarLoc[],
  lastFirst: boolean,
): (t: Token) => readonly Value[] {
  const reads = locs.map(outerRead);
  if (lastFirst) reads.reverse();
  return (t) => reads.map((read) => read(t));
}

export type TermTest = (v: Value, f: Frame) => boolean;

/** True when every term of some alternative holds for `v` (a join's `a&b|c` constraint). */
function anyAlternative(alts: readonly (readonly TermTest[])[], v: Value, f: Frame): boolean {
  for (let i = 0; i < alts.length; i++) {
    const terms = alts[i] as readonly TermTest[];
    let ok = true;
    for (let j = 0; j < terms.length && ok; j++) ok = (terms[j] as TermTest)(v, f);
    if (ok) return true;
  }
  return false;
}

/** The hash functions and key comparison of a join on the given left and right values. */
function hashJoin(
  lefts: readonly VarLoc[],
  rights: readonly FieldRead[],
): Pick<JoinSpec, "leftHash" | "rightHash" | "keyEq"> {
  if (lefts.length === 0) return { leftHash: null, rightHash: null, keyEq: null };
  const leftAt = lefts.map((loc) => directIndex(loc.read));
  const rightAt = rights.map(directIndex);
  if (leftAt.every((i) => i !== undefined) && rightAt.every((i) => i !== undefined)) {
    return directHashJoin(
      lefts.map((loc) => loc.slot),
      leftAt as number[],
      rightAt as number[],
    );
  }
  const leftReads = lefts.map(outerRead);
  const n = lefts.length;
  // Joins of both kinds can share an alpha memory (hashed by whichever join made it), so a key
  // hashes as directHashJoin hashes it: the first value's hash, the others folded in.
  const first = leftReads[0] as LeftRead;
  const firstRight = rights[0] as FieldRead;
  return {
    leftHash: (t) => {
      let h = valueHash(first(t));
      for (let i = 1; i < n; i++) h = combineHash(h, valueHash((leftReads[i] as LeftRead)(t)));
      return h;
    },
    rightHash: (am) => {
      let h = valueHash(firstRight(am.fact, am.marks));
      for (let i = 1; i < n; i++) {
        h = combineHash(h, valueHash((rights[i] as FieldRead)(am.fact, am.marks)));
      }
      return h;
    },
    keyEq: (t, am) => {
      for (let i = 0; i < n; i++) {
        const left = (leftReads[i] as LeftRead)(t);
        if (!valuesEqual(left, (rights[i] as FieldRead)(am.fact, am.marks))) return false;
      }
      return true;
    },
  };
}

type LeftRead = (t: Token) => Value;

/**
 * The common case: every joined value sits at a fixed place in its fact (a template slot, an
 * ordered fact's field before any multifield), so hashes come from the facts' cached hashes and
 * the values compare with `===` (single fields hold atoms, which are interned).
 */
function directHashJoin(
  slots: readonly number[],
  leftAt: readonly number[],
  rightAt: readonly number[],
): Pick<JoinSpec, "leftHash" | "rightHash" | "keyEq"> {
  if (slots.length === 1) {
    const slot = slots[0] as number;
    const l = leftAt[0] as number;
    const r = rightAt[0] as number;
    return {
      leftHash: (t) => (matchAt(t, slot) as AlphaMatch).hashes[l] as number,
      rightHash: (am) => am.hashes[r] as number,
      keyEq: (t, am) => (matchAt(t, slot) as AlphaMatch).values[l] === am.values[r],
    };
  }
  // Read the values nearest the token first, so one walk up the token's parents reaches them all;
  // combine them in the pairs' own order, as the alpha memory's hash does (several joins with
  // their variables bound in different orders share one memory).
  const order = slots.map((_, i) => i).sort((a, b) => (slots[b] as number) - (slots[a] as number));
  const at = order.map((i) => slots[i] as number);
  const lefts = order.map((i) => leftAt[i] as number);
  const rights = order.map((i) => rightAt[i] as number);
  const n = at.length;
  const rightHash = (am: AlphaMatch): number => {
    let h = am.hashes[rightAt[0] as number] as number;
    for (let i = 1; i < n; i++) h = combineHash(h, am.hashes[rightAt[i] as number] as number);
    return h;
  };
  // Most joins on several variables compare two or three: those read them without a loop.
  if (n === 2) {
    return {
      leftHash: pairHash(at, lefts, order[0] === 0),
      rightHash,
      keyEq: smallEq(at, lefts, rights),
    };
  }
  if (n === 3) {
    return {
      leftHash: tripleHash(at, lefts, order),
      rightHash,
      keyEq: smallEq(at, lefts, rights),
    };
  }
  const scratch = new Int32Array(n);
  return {
    leftHash: (t) => {
      let x = t;
      for (let i = 0; i < n; i++) {
        const slot = (at[i] as number) + 1;
        while (x.depth > slot) x = x.parent as Token;
        scratch[order[i] as number] = (x.am as AlphaMatch).hashes[lefts[i] as number] as number;
      }
      let h = scratch[0] as number;
      for (let i = 1; i < n; i++) h = combineHash(h, scratch[i] as number);
      return h;
    },
    rightHash,
    keyEq: (t, am) => {
      const values = am.values;
      let x = t;
      for (let i = 0; i < n; i++) {
        const slot = (at[i] as number) + 1;
        while (x.depth > slot) x = x.parent as Token;
        const left = (x.am as AlphaMatch).values[lefts[i] as number];
        if (left !== values[rights[i] as number]) return false;
      }
      return true;
    },
  };
}

/** The token's hash on two values at depths `at` (deepest first), `inOrder`: the first is pair 0. */
function pairHash(
  at: readonly number[],
  lefts: readonly number[],
  inOrder: boolean,
): (t: Token) => number {
  const [d0, d1] = at.map((slot) => slot + 1) as [number, number];
  const [l0, l1] = lefts as [number, number];
  return (t) => {
    let x = t;
    while (x.depth > d0) x = x.parent as Token;
    const h0 = (x.am as AlphaMatch).hashes[l0] as number;
    while (x.depth > d1) x = x.parent as Token;
    const h1 = (x.am as AlphaMatch).hashes[l1] as number;
    return inOrder ? combineHash(h0, h1) : combineHash(h1, h0);
  };
}

/** The token's hash on three values, read deepest first and combined in the pairs' order. */
function tripleHash(
  at: readonly number[],
  lefts: readonly number[],
  order: readonly number[],
): (t: Token) => number {
  const [d0, d1, d2] = at.map((slot) => slot + 1) as [number, number, number];
  const [l0, l1, l2] = lefts as [number, number, number];
  const [o0, o1, o2] = order as [number, number, number];
  const h = new Int32Array(3);
  return (t) => {
    let x = t;
    while (x.depth > d0) x = x.parent as Token;
    h[o0] = (x.am as AlphaMatch).hashes[l0] as number;
    while (x.depth > d1) x = x.parent as Token;
    h[o1] = (x.am as AlphaMatch).hashes[l1] as number;
    while (x.depth > d2) x = x.parent as Token;
    h[o2] = (x.am as AlphaMatch).hashes[l2] as number;
    return combineHash(combineHash(h[0] as number, h[1] as number), h[2] as number);
  };
}

/**
 * True when the token's two or three values (at depths `at`, deepest first) equal the match's:
 * {@link directHashJoin}'s loop unrolled.
 */
function smallEq(
  at: readonly number[],
  lefts: readonly number[],
  rights: readonly number[],
): (t: Token, am: AlphaMatch) => boolean {
  const [d0, d1, d2 = 0] = at.map((slot) => slot + 1) as [number, number, number?];
  const [l0, l1, l2 = 0] = lefts as [number, number, number?];
  const [r0, r1, r2 = 0] = rights as [number, number, number?];
  const three = at.length === 3;
  return (t, am) => {
    const values = am.values;
    let x = t;
    while (x.depth > d0) x = x.parent as Token;
    if ((x.am as AlphaMatch).values[l0] !== values[r0]) return false;
    while (x.depth > d1) x = x.parent as Token;
    if ((x.am as AlphaMatch).values[l1] !== values[r1]) return false;
    if (!three) return true;
    while (x.depth > d2) x = x.parent as Token;
    return (x.am as AlphaMatch).values[l2] === values[r2];
  };
}
