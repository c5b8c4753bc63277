/**
 * CLIPS 6.30's static cardinality check of a multislot's pattern (rulecstr.c
 * MultifieldCardinalityViolation): each single-field restriction counts one value, a multifield
 * variable bound before counts what its own slot allowed it, `$?` anything; a sum the slot's
 * `(cardinality min max)` cannot meet is `[CSTRNCHK1] The group of restrictions…`. A multifield
 * variable alone in the slot takes the slot's cardinality; one bound before needing more values
 * than the slot's maximum leaves it beside the single-field restrictions is [RULECSTR1].
 */
import type { FieldConstraint, SlotDef } from "./ast.js";
import { rulesLoadError } from "./errors.js";

/** The least and most values a multifield variable may hold. */
export type Sizes = readonly [number, number];

const ANY_SIZE: Sizes = [0, Number.POSITIVE_INFINITY];

/** Checks the fields of multislot `slot` in CE #n; records the sizes of variables bound there. */
export function checkMultislot(
  fields: readonly FieldConstraint[],
  slot: Pick<SlotDef, "name" | "cardinality">,
  n: number,
  sizes: Map<string, Sizes>,
  construct: string,
): void {
  const [low, high] = slot.cardinality ?? [null, null];
  const own: Sizes = [low ?? 0, high ?? Number.POSITIVE_INFINITY];
  const lone = fields.length === 1 ? loneVariable(fields[0] as FieldConstraint) : null;
  if (lone !== null) {
    const was = sizes.get(lone) ?? ANY_SIZE;
    const now: Sizes = [Math.max(was[0], own[0]), Math.min(was[1], own[1])];
    if (now[0] > now[1]) {
      throw error(
        fields[0] as FieldConstraint,
        `[RULECSTR1] Variable ?${lone} in CE #${n} slot ${slot.name}\nhas constraint conflicts which make the pattern unmatchable.`,
        construct,
      );
    }
    sizes.set(lone, now);
    return;
  }
  // Each bound multifield variable may hold at most what the single-field ones leave.
  const singles = fields.filter((f) => !f.multi).length;
  for (const f of fields) {
    const v = loneVariable(f);
    const was = v === null ? undefined : sizes.get(v);
    if (v !== null && was !== undefined && was[0] > own[1] - singles) {
      throw error(
        f,
        `[RULECSTR1] Variable ?${v} in CE #${n} slot ${slot.name}\nhas constraint conflicts which make the pattern unmatchable.`,
        construct,
      );
    }
  }
  let least = 0;
  let most = 0;
  for (const f of fields) {
    const v = loneVariable(f);
    const [a, b] = !f.multi ? [1, 1] : v !== null ? (sizes.get(v) ?? ANY_SIZE) : ANY_SIZE;
    least += a;
    most += b;
    if (v !== null && !sizes.has(v)) sizes.set(v, ANY_SIZE);
  }
  if (Math.max(least, own[0]) > Math.min(most, own[1])) {
    throw error(
      fields.at(-1) as FieldConstraint,
      `[CSTRNCHK1] The group of restrictions found in CE #${n}\ndoes not satisfy the cardinality restrictions for slot ${slot.name}.`,
      construct,
    );
  }
}

/** The name of a multifield variable standing alone in a field (`$?x`), or null. */
function loneVariable(f: FieldConstraint): string | null {
  const only = f.alts.length === 1 && f.alts[0]?.length === 1 ? f.alts[0][0] : undefined;
  return only?.kind === "var" && only.mf && !only.neg ? only.name : null;
}

function error(field: FieldConstraint, clips: string, construct: string): Error {
  return rulesLoadError(field.pos, "the multislot's pattern can never match", {
    construct,
    clips,
    hint: "The slot's cardinality excludes every number of values the pattern allows.",
    echoWhole: true,
  });
}
