import { DAY_MS, type TimeInput, toIso, toMs } from "./time.js";

/** The temporal fields of a decision stream (seed 001, `DecisionStream`). */
export interface TemporalStream {
  frequency: number;
  stability_score?: number;
  reinforcement_density?: number;
  first_seen?: string;
  last_seen?: string;
}

/** What `calculateTemporalSignals` computes. */
export interface TemporalSignals {
  frequency: number;
  first_seen: string;
  last_seen: string;
  lifetime_days: number;
  reinforcement_density: number;
  coverage: number;
  stability_score: number;
}

/** The observation window of the lifecycle, in days. */
export const OBSERVATION_WINDOW_DAYS = 30;

/**
 * Folds a batch of new reinforcement dates into a stream's temporal signals. A fresh stream
 * (frequency 0) takes the batch's first and last dates as its bounds; an older one widens them.
 * `lifetime_days` is last − first, `reinforcement_density = frequency / max(lifetime, 0.01)`,
 * `coverage = lifetime / window` (not clamped). The batch's stability is
 * `max(0, 1 − var(intervals) / (lifetime + 1))` for three or more dates (sample variance), 0.3
 * for two, 0 for one, blended with the old score by frequency. With no dates only the lifetime
 * (now − first seen) and coverage move.
 *
 * @example
 * calculateTemporalSignals({ frequency: 0 }, ["2026-02-26T12:00:00Z", "2026-02-28T12:00:00Z"], Date.now())
 * // { frequency: 2, lifetime_days: 2, stability_score: 0.3, … }
 */
export function calculateTemporalSignals(
  stream: TemporalStream,
  reinforcementDates: readonly TimeInput[],
  now: TimeInput,
  observationWindowDays = OBSERVATION_WINDOW_DAYS,
): TemporalSignals {
  const nowMs = toMs(now);
  const firstMs = stream.first_seen === undefined ? nowMs : toMs(stream.first_seen);
  const lastMs = stream.last_seen === undefined ? nowMs : toMs(stream.last_seen);
  if (reinforcementDates.length === 0) {
    const lifetime = (nowMs - firstMs) / DAY_MS;
    return {
      frequency: stream.frequency,
      first_seen: toIso(firstMs),
      last_seen: toIso(lastMs),
      lifetime_days: lifetime,
      reinforcement_density: stream.reinforcement_density ?? 0,
      coverage: lifetime / observationWindowDays,
      stability_score: stream.stability_score ?? 0,
    };
  }
  const dates = reinforcementDates.map(toMs).sort((a, b) => a - b);
  const earliest = dates[0] as number;
  const latest = dates[dates.length - 1] as number;
  const fresh = stream.frequency === 0;
  const first = fresh ? earliest : Math.min(firstMs, earliest);
  const last = fresh ? latest : Math.max(lastMs, latest);
  const lifetime = (last - first) / DAY_MS;
  const safeLifetime = Math.max(lifetime, 0.01);
  const frequency = stream.frequency + dates.length;
  const batch = batchStability(dates, safeLifetime);
  const stability = fresh
    ? batch
    : ((stream.stability_score ?? 0) * stream.frequency + batch * dates.length) / frequency;
  return {
    frequency,
    first_seen: toIso(first),
    last_seen: toIso(last),
    lifetime_days: lifetime,
    reinforcement_density: frequency / safeLifetime,
    coverage: lifetime / observationWindowDays,
    stability_score: stability,
  };
}

/** The stability signal of one batch of sorted dates. */
function batchStability(dates: readonly number[], safeLifetime: number): number {
  if (dates.length === 2) return 0.3;
  if (dates.length < 2) return 0;
  const intervals = dates.slice(1).map((date, i) => (date - (dates[i] as number)) / DAY_MS);
  return Math.max(0, 1 - sampleVariance(intervals) / (safeLifetime + 1));
}

function sampleVariance(values: readonly number[]): number {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}
