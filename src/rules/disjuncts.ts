import type { CE } from "./ast.js";

/**
 * Expands `or` conditional elements into disjuncts, as CLIPS does: a rule with an `or` behaves as
 * several rules with the same name, one per alternative. Nested `and`s are flattened; an `or`
 * inside a not goes by De Morgan's law, so `(not (or A B))` becomes `(not A) (not B)`, and one
 * inside exists becomes `(not (and (not A) (not B)))`, and a forall holding one is read as its
 * not (CLIPS's reorder.c lifts every `or`).
 */
export function expandOr(ces: CE[]): CE[][] {
  let out: CE[][] = [[]];
  for (const ce of ces) {
    const alternatives = expandOne(ce);
    const next: CE[][] = [];
    for (const prefix of out) for (const alt of alternatives) next.push([...prefix, ...alt]);
    out = next;
  }
  return out;
}

function expandOne(ce: CE): CE[][] {
  switch (ce.type) {
    case "or":
      return ce.ces.flatMap((c) => expandOne(c));
    case "and":
      return expandOr(ce.ces);
    case "not": {
      const alts = expandOne(ce.ce);
      if (alts.length === 1) return [[{ ...ce, ce: conjunction(alts[0] as CE[], ce) }]];
      return [alts.map((alt): CE => ({ type: "not", ce: conjunction(alt, ce), pos: ce.pos }))];
    }
    case "exists": {
      const alts = expandOr(ce.ces);
      if (alts.length === 1) return [[{ ...ce, ces: alts[0] as CE[] }]];
      // exists is not-not: the inner not of the `or` is a conjunction of nots.
      const nots = alts.map((alt): CE => ({ type: "not", ce: conjunction(alt, ce), pos: ce.pos }));
      return [[{ type: "not", ce: { type: "and", ces: nots, pos: ce.pos }, pos: ce.pos }]];
    }
    case "forall": {
      // `(forall A B…)` is `(not (and A (not (and B…))))` (reorder.c): with an `or` inside, it
      // is expanded as that not, so the `or` is lifted as in any not.
      if (![ce.first, ...ce.rest].some(hasOr)) return [[ce]];
      const rest: CE = { type: "not", ce: { type: "and", ces: ce.rest, pos: ce.pos }, pos: ce.pos };
      return expandOne({
        type: "not",
        ce: { type: "and", ces: [ce.first, rest], pos: ce.pos },
        pos: ce.pos,
      });
    }
    default:
      return [[ce]];
  }
}

/** Whether a CE is, or holds, an `or`. */
function hasOr(ce: CE): boolean {
  switch (ce.type) {
    case "or":
      return true;
    case "and":
      return ce.ces.some(hasOr);
    case "not":
      return hasOr(ce.ce);
    case "exists":
      return ce.ces.some(hasOr);
    case "forall":
      return [ce.first, ...ce.rest].some(hasOr);
    default:
      return false;
  }
}

/** One CE for an alternative's list: itself when alone, else an `and` of them. */
function conjunction(ces: CE[], at: CE): CE {
  return ces.length === 1 ? (ces[0] as CE) : { type: "and", ces, pos: at.pos };
}
