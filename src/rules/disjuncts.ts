import type { CE } from "./ast.js";

/**
 * Expands `or` conditional elements into disjuncts, as CLIPS does: a rule with an `or` behaves as
 * several rules with the same name, one per alternative. Nested `and`s are flattened.
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
  if (ce.type === "or") return ce.ces.flatMap((c) => expandOne(c));
  if (ce.type === "and") return expandOr(ce.ces);
  return [[ce]];
}
