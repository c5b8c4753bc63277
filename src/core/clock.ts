/** A source of time, injectable so tests and replays can control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch (the unit of every `_at` column). */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
