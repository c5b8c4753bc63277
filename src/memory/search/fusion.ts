/** The reciprocal-rank constant of the reference (k = 60). */
export const RRF_K = 60;

/** Boosts of the reference, by phase, vitality and kind. */
export const PHASE_WEIGHTS: Readonly<Record<string, number>> = {
  canonical: 1.5,
  emergent: 1.2,
  pattern: 1,
};
export const VITALITY_WEIGHTS: Readonly<Record<string, number>> = {
  active: 1,
  decaying: 0.5,
  dormant: 0.2,
};
export const KIND_WEIGHTS: Readonly<Record<string, number>> = { decision: 1.35, proposal: 1 };

/** The fields of a candidate that its rank weight reads. */
export interface RankedCandidate {
  id: string;
  kind: string;
  phase: string;
}

/**
 * Fuses rankings (full text, vectors) by reciprocal rank: each list adds
 * `weight / (k + rank + 1)` to a candidate, the weight being 1.35 for decisions times 1.5
 * (canonical) or 1.2 (emergent). Returns each id's fused score, normalised by the
 * reference's ceiling `3 / (k + 1)`.
 *
 * @example
 * fuseRankings([[a, b], [b]]) // Map { "b" → …, "a" → … }
 */
export function fuseRankings(lists: readonly (readonly RankedCandidate[])[]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((candidate, rank) => {
      const weight =
        (candidate.kind === "decision" ? 1.35 : 1) * (PHASE_WEIGHTS[candidate.phase] ?? 1);
      scores.set(candidate.id, (scores.get(candidate.id) ?? 0) + weight / (RRF_K + rank + 1));
    });
  }
  const ceiling = 3 / (RRF_K + 1);
  for (const [id, score] of scores) scores.set(id, score / ceiling);
  return scores;
}

/**
 * The final score of a resolved record: `min(1, (base + min(0.2·links, 1)) · phase · vitality ·
 * kind)`, damped ×0.2 when rejected or falsified and ×0.3 when superseded or deprecated.
 */
export function finalScore(input: {
  base: number;
  links: number;
  phase: string;
  vitality: string;
  kind: string;
  status: string;
}): number {
  let multiplier =
    (PHASE_WEIGHTS[input.phase] ?? 1) *
    (VITALITY_WEIGHTS[input.vitality] ?? 1) *
    (KIND_WEIGHTS[input.kind] ?? 1);
  if (input.status === "rejected" || input.status === "falsified") multiplier *= 0.2;
  else if (input.status === "superseded" || input.status === "deprecated") multiplier *= 0.3;
  return Math.min(1, (input.base + Math.min(input.links * 0.2, 1)) * multiplier);
}
