import type { CE } from "./ast.js";

/**
 * Expands `or` conditional elements into disjuncts, as CLIPS does: a rule with an `or` behaves as
 * several rules with the same name, one per alternative. Nested `and`s are flattened, and a
 * `(not (or A B))` becomes `(not A) (not B)`.
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
  // As CLIPS: (not (or A B)) is (not A) (not B).
  if (ce.type === "not" && ce.ce.type === "or") {
    return expandOr(ce.ce.ces.map((c): CE => ({ type: "not", ce: c, pos: ce.pos })));
  }
  if (ce.type === "and") return expandOr(ce.ces);
  return [[ce]];
}
