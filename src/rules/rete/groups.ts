/**
 * How CLIPS 6.30 reads not, exists and forall (reorder.c, rulebld.c): a not or exists of one
 * pattern is a join on that pattern; over anything else it is a group whose own sub-network
 * feeds a join from the right (a "nand" join). `(not (not p))` is `(exists p)`, `(exists a b)` is
 * `(not (not (and a b)))` and `(forall a b…)` is `(not (and a (not (and b…))))`.
 */
import type { CE, FieldConstraint, PatternCE } from "../ast.js";
import { valuesEqual } from "../values.js";
import type { JoinSpec } from "./beta.js";
import type { GroupMatch } from "./blocking.js";
import { combineHash, valueHash } from "./hash.js";
import { clipsHashOf, outerRead } from "./join-build.js";
import { exprVars, type Scope, type VarLoc } from "./pattern-context.js";

/** A not/exists as the network builds it. */
export type Negation =
  | { readonly kind: "pattern"; readonly ce: PatternCE; readonly exists: boolean }
  | { readonly kind: "group"; readonly ces: CE[]; readonly exists: boolean };

const negations = new WeakMap<CE, Negation>();

/** The not/exists a not, exists or forall CE stands for (the same object for the same CE). */
export function negationOf(ce: CE & { type: "not" | "exists" | "forall" }): Negation {
  let negation = negations.get(ce);
  if (!negation) {
    negation = readNegation(ce);
    negations.set(ce, negation);
  }
  return negation;
}

function readNegation(ce: CE & { type: "not" | "exists" | "forall" }): Negation {
  if (ce.type === "forall") {
    const rest: CE = { type: "and", pos: ce.pos, ces: ce.rest };
    return {
      kind: "group",
      ces: [ce.first, { type: "not", pos: ce.pos, ce: rest }],
      exists: false,
    };
  }
  if (ce.type === "exists") return groupOrPattern(ce.ces, true);
  const only = singleCE([ce.ce]);
  if (only?.type === "not") return groupOrPattern([only.ce], true);
  return groupOrPattern([ce.ce], false);
}

function groupOrPattern(ces: CE[], exists: boolean): Negation {
  const only = singleCE(ces);
  if (only?.type === "pattern") return { kind: "pattern", ce: only, exists };
  return { kind: "group", ces: only?.type === "and" ? only.ces : only ? [only] : ces, exists };
}

/** The one conditional element of a list, looking through single-element `and`s. */
function singleCE(ces: CE[]): CE | null {
  let list = ces;
  while (list.length === 1 && (list[0] as CE).type === "and") list = (list[0] as { ces: CE[] }).ces;
  return list.length === 1 ? (list[0] as CE) : null;
}

/** One field's occurrence of a variable, as CLIPS's analysis resolves references to it. */
interface Occurrence {
  /** The nand depth of the pattern it is in (1 outside every group). */
  readonly depth: number;
}

/** A nand group being analysed: the depth it was entered from and the variables it compares. */
interface Frame {
  readonly depth: number;
  readonly externals: string[];
}

/**
 * The variables each nand join of a rule compares, as CLIPS 6.30 decides them (analysis.c,
 * AddNandUnification): a group reading a variable of an enclosing level compares it at its join
 * (and at every group between), but only for the first reference to a given occurrence of the
 * variable — each reference reads the closest occurrence before it, a field led by the variable
 * in a positive pattern, and CLIPS marks that occurrence once it is compared. So a second group
 * reading the same occurrence is not compared on it (and a match of that group blocks tokens
 * whatever their value): a CLIPS 6.30 quirk reproduced, see docs/rules.md.
 */
export function nandExternals(ces: readonly CE[]): Map<Negation, string[]> {
  const out = new Map<Negation, string[]>();
  // Only not/exists/forall groups compare anything: most rules have none.
  if (!ces.some(negates)) return out;
  const marked = new Set<Occurrence>();
  const frames: Frame[] = [];
  const read = (name: string, depth: number, latest: Map<string, Occurrence>) => {
    const occ = latest.get(name);
    if (!occ || occ.depth === depth || marked.has(occ)) return;
    for (const f of frames) {
      if (f.depth < occ.depth) continue;
      marked.add(occ);
      if (!f.externals.includes(name)) f.externals.push(name);
    }
  };
  const field = (fc: FieldConstraint, depth: number, latest: Map<string, Occurrence>) => {
    for (const alt of fc.alts) {
      for (const t of alt) {
        if (t.kind === "var") read(t.name, depth, latest);
        else if (t.kind !== "lit") for (const name of exprVars(t.expr)) read(name, depth, latest);
      }
    }
    const lead = fc.alts.length === 1 ? fc.alts[0]?.[0] : undefined;
    if (lead?.kind === "var" && !lead.neg) latest.set(lead.name, { depth });
  };
  const pattern = (ce: PatternCE, depth: number, latest: Map<string, Occurrence>) => {
    for (const fc of ce.fields) field(fc, depth, latest);
    for (const fcs of ce.slots.values()) for (const fc of fcs) field(fc, depth, latest);
  };
  const walk = (list: readonly CE[], depth: number, latest: Map<string, Occurrence>): void => {
    for (const ce of list) {
      switch (ce.type) {
        case "pattern":
          pattern(ce, depth, latest);
          break;
        case "test":
          for (const name of exprVars(ce.expr)) read(name, depth, latest);
          break;
        case "and":
        case "or":
          walk(ce.ces, depth, latest);
          break;
        default: {
          const negation = negationOf(ce);
          // A negated pattern's occurrences reach only its own later fields.
          if (negation.kind === "pattern") pattern(negation.ce, depth, new Map(latest));
          else {
            const frame: Frame = { depth, externals: [] };
            out.set(negation, frame.externals);
            frames.unshift(frame);
            walk(negation.ces, depth + 1, new Map(latest));
            frames.shift();
          }
        }
      }
    }
  };
  walk(ces, 1, new Map());
  return out;
}

/**
 * A nand join's comparison: a group match blocks a token when they agree on the variables the
 * group reads from outside (both read them at the same places: a group match extends the token
 * it was made from); hashed on those values.
 */
export function nandJoin(externals: readonly string[], scope: Scope): JoinSpec<GroupMatch> {
  const locs = externals.map((name) => scope.get(name) as VarLoc);
  const key = locs.map((loc) => `${loc.slot}:${loc.key}`).join(",");
  if (locs.length === 0) {
    return {
      key,
      leftHash: null,
      rightHash: null,
      keyEq: null,
      test: null,
      clipsHash: null,
      parts: null,
    };
  }
  const reads = locs.map(outerRead);
  const n = reads.length;
  const leftHash = (t: GroupMatch["token"]) => {
    let h = 0;
    for (let i = 0; i < n; i++) h = combineHash(h, valueHash((reads[i] as (typeof reads)[0])(t)));
    return h;
  };
  return {
    key,
    leftHash,
    rightHash: (gm) => leftHash(gm.token),
    keyEq: (t, gm) => {
      for (let i = 0; i < n; i++) {
        const read = reads[i] as (typeof reads)[0];
        if (!valuesEqual(read(t), read(gm.token))) return false;
      }
      return true;
    },
    test: null,
    clipsHash: clipsHashOf(locs, false),
    parts: null,
  };
}

/** True when a CE is, or contains, a not/exists/forall. */
function negates(ce: CE): boolean {
  if (ce.type === "not" || ce.type === "exists" || ce.type === "forall") return true;
  return (ce.type === "and" || ce.type === "or") && ce.ces.some(negates);
}
