import type { Clock } from "../../core/index.js";
import type { RetryPolicy } from "../contracts/task.js";
import type { RandomSource } from "./random.js";

/** What to do after a failed attempt: retry at a time, or stop. */
export type RetryPlan =
  | {
      retry: true;
      /** The 0-indexed attempt the retry will be. */
      nextAttempt: number;
      delayMs: number;
      /** When the retry may run, in Unix milliseconds (the `_at` unit). */
      nextWakeAt: number;
      /** The same instant as the seed's `next_wake_time` (ISO 8601, UTC). */
      nextWakeTime: string;
    }
  | { retry: false; reason: "strategy-none" | "attempts-exhausted" };

/** Inputs of a retry decision. */
export interface PlanRetryOptions {
  policy: RetryPolicy;
  /** The 0-indexed attempt that just failed. */
  attempt: number;
  maxAttempts: number;
  clock: Clock;
  random: RandomSource;
}

/**
 * The delay before the retry that follows failed attempt `attempt` (0-indexed), or `null` for
 * `none`.
 *
 * - `fixed`: `base_delay_ms` every time.
 * - `exponential`: `base_delay_ms × 2^attempt`.
 *
 * Both are capped at `max_delay_ms`. With jitter the delay is drawn uniformly from the upper half
 * of that value ("equal jitter"): retries of many runs spread out, yet each still waits at least
 * half the nominal delay, so backoff keeps backing off.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: RandomSource,
): number | null {
  if (policy.strategy === "none") return null;
  const nominal =
    policy.strategy === "fixed" ? policy.base_delay_ms : policy.base_delay_ms * 2 ** attempt;
  const capped = Math.min(policy.max_delay_ms, nominal);
  if (!policy.jitter) return capped;
  const half = capped / 2;
  return Math.floor(half + random() * half);
}

/**
 * Decides whether and when the attempt after a failure runs, from an injected clock and random
 * source.
 *
 * @example
 * const plan = planRetry({ policy, attempt: step.attempt, maxAttempts: step.max_attempts, clock, random });
 * if (plan.retry) task.next_wake_time = plan.nextWakeTime;
 */
export function planRetry(options: PlanRetryOptions): RetryPlan {
  const { policy, attempt, maxAttempts, clock, random } = options;
  const delayMs = retryDelayMs(policy, attempt, random);
  if (delayMs === null) return { retry: false, reason: "strategy-none" };
  if (attempt + 1 >= maxAttempts) return { retry: false, reason: "attempts-exhausted" };
  const nextWakeAt = clock.now() + delayMs;
  return {
    retry: true,
    nextAttempt: attempt + 1,
    delayMs,
    nextWakeAt,
    nextWakeTime: new Date(nextWakeAt).toISOString(),
  };
}
