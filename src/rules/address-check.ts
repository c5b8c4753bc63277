/**
 * CLIPS 6.30's checks of pattern addresses (analysis.c): `?f <- (…)` may not bind a variable
 * another pattern already bound as its address ([ANALYSIS1]) or in one of its fields
 * ([ANALYSIS2]). Conditional elements are numbered and scoped as for [ANALYSIS4]
 * (lhs-variables.ts): patterns and test CEs depth first, what a not/exists binds seen only inside.
 */
import type { CE, FieldConstraint, PatternCE } from "./ast.js";
import { rulesLoadError } from "./errors.js";

/** What is bound so far: addresses, and variables bound in a field. */
interface Bound {
  readonly addresses: Set<string>;
  readonly fields: Set<string>;
  /** Inside a not, exists or forall. */
  readonly inside?: boolean;
}

/** Throws CLIPS's [ANALYSIS1] or [ANALYSIS2] for the first pattern address bound twice. */
export function checkPatternAddresses(ces: readonly CE[], construct: string): void {
  walk(ces, { addresses: new Set(), fields: new Set() }, { n: 0 }, construct);
}

function walk(ces: readonly CE[], bound: Bound, counter: { n: number }, construct: string) {
  for (const ce of ces) one(ce, bound, counter, construct);
}

function copy(b: Bound): Bound {
  return { addresses: new Set(b.addresses), fields: new Set(b.fields), inside: b.inside === true };
}

function one(ce: CE, bound: Bound, counter: { n: number }, construct: string): void {
  switch (ce.type) {
    case "pattern":
      counter.n++;
      pattern(ce, bound, counter.n, construct);
      return;
    case "test":
      counter.n++;
      return;
    case "and":
      walk(ce.ces, bound, counter, construct);
      return;
    case "or": {
      // Each disjunct is checked on its own; what any of them binds is seen after the or.
      const after = copy(bound);
      for (const d of ce.ces) {
        const inner = copy(bound);
        one(d, inner, counter, construct);
        for (const v of inner.addresses) after.addresses.add(v);
        for (const v of inner.fields) after.fields.add(v);
      }
      for (const v of after.addresses) bound.addresses.add(v);
      for (const v of after.fields) bound.fields.add(v);
      return;
    }
    case "not":
      // CLIPS refuses an address inside not/exists/forall when it reads it ([RULELHS2]).
      one(ce.ce, { ...copy(bound), inside: true }, counter, construct);
      return;
    case "exists":
      walk(ce.ces, { ...copy(bound), inside: true }, counter, construct);
      return;
    case "forall": {
      const inner = { ...copy(bound), inside: true };
      one(ce.first, inner, counter, construct);
      walk(ce.rest, inner, counter, construct);
      return;
    }
  }
}

function pattern(ce: PatternCE, bound: Bound, n: number, construct: string): void {
  const address = bound.inside ? null : ce.addressVar;
  if (address !== null) {
    const clips = bound.addresses.has(address)
      ? `[ANALYSIS1] Duplicate pattern-address ?${address} found in CE #${n}.`
      : bound.fields.has(address)
        ? `[ANALYSIS2] Pattern-address ?${address} used in CE #${n} was previously bound within a pattern CE.`
        : null;
    if (clips !== null) {
      throw rulesLoadError(ce.pos, `pattern address ?${address} is already bound`, {
        construct,
        clips,
        hint: "Bind each pattern address once, to a variable no pattern field binds.",
      });
    }
  }
  for (const field of ce.fields) fieldVars(field, bound.fields);
  for (const [, fields] of ce.slots) for (const field of fields) fieldVars(field, bound.fields);
  if (address !== null) bound.addresses.add(address);
}

function fieldVars(field: FieldConstraint, into: Set<string>): void {
  for (const alt of field.alts) {
    for (const term of alt) if (term.kind === "var" && !term.neg && !term.mf) into.add(term.name);
  }
}
