/**
 * A source of uniform random numbers in [0, 1), injectable so that retry jitter is reproducible
 * in tests and replays.
 */
export type RandomSource = () => number;

/** The platform's `Math.random`. */
export const systemRandom: RandomSource = () => Math.random();

/**
 * A deterministic random source (mulberry32) for tests, replays and seeded trials: the same seed
 * always gives the same sequence.
 *
 * @example
 * const random = seededRandom(42);
 * random(); // always the same first number for seed 42
 */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
