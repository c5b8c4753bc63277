/**
 * A join's field tests when each compares single values at fixed places (`(sex ~?s)`,
 * `(colour ?c&~red)`): read straight from the facts' `values`, as the hashed comparison reads
 * them, instead of through an evaluation frame and a closure per value read. Such a test runs for
 * every token and alpha match the hash pairs up (Manners' `(guest (sex ~?s1) (hobby ?h1))` for
 * each guest sharing the hobby), so its cost is per candidate, not per match.
 */
import { directIndex } from "./field-place.js";
import { type AlphaMatch, matchAt, type Token } from "./memory.js";
import type { Context } from "./pattern-context.js";

/** One comparison: field `at` against field `index` of the pattern at token position `from`. */
interface Check {
  readonly at: number;
  readonly from: number;
  readonly index: number;
  readonly neg: boolean;
}

/**
 * The test function, or null when some test needs the general path (alternatives with `|`,
 * predicates, return-value constraints, multifield places or variables, an address variable,
 * extra test CEs; literals and the pattern's own variables are tested in the pattern network,
 * so they do not come here). Single-field values are atoms compared by identity (what
 * `valuesEqual` does for them, and what the hashed comparison relies on), so the result is the
 * general path's.
 */
export function directTests(ctx: Context): ((t: Token, am: AlphaMatch) => boolean) | null {
  if (ctx.extraTests.length > 0 || ctx.joinTests.length === 0) return null;
  const checks: Check[] = [];
  for (const jt of ctx.joinTests) {
    if (jt.alts.length !== 1) return null;
    const at = directIndex(ctx.reads[jt.slot] ?? null);
    if (at === undefined) return null;
    for (const term of jt.alts[0] ?? []) {
      if (term.kind !== "var" || term.mf) return null;
      const local = ctx.locals.get(term.name);
      if (local !== undefined && local >= 0) return null;
      const outer = ctx.outer.get(term.name);
      const index = outer ? directIndex(outer.read) : undefined;
      if (outer === undefined || index === undefined) return null;
      checks.push({ at, from: outer.slot, index, neg: term.neg });
    }
  }
  if (checks.length === 1) {
    // The common case (one `~?x` or `?x&…` against an earlier pattern), without the loop.
    const { at, from, index, neg } = checks[0] as Check;
    return (t, am) => (am.values[at] === (matchAt(t, from) as AlphaMatch).values[index]) !== neg;
  }
  const n = checks.length;
  return (t, am) => {
    const values = am.values;
    for (let i = 0; i < n; i++) {
      const c = checks[i] as Check;
      const other = (matchAt(t, c.from) as AlphaMatch).values[c.index];
      if ((values[c.at] === other) === c.neg) return false;
    }
    return true;
  };
}
