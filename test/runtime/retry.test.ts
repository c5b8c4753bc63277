import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/index.js";
import type { RetryPolicy } from "../../src/runtime/contracts/index.js";
import { planRetry, retryDelayMs, seededRandom } from "../../src/runtime/policy/index.js";

const clock: Clock = { now: () => Date.parse("2026-01-01T00:00:00.000Z") };
const exponential: RetryPolicy = {
  strategy: "exponential",
  base_delay_ms: 100,
  max_delay_ms: 5_000,
  jitter: true,
};

describe("retry policies", () => {
  it("waits the base delay every time for fixed without jitter", () => {
    const fixed: RetryPolicy = {
      strategy: "fixed",
      base_delay_ms: 250,
      max_delay_ms: 250,
      jitter: false,
    };
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(retryDelayMs(fixed, attempt, () => 0.99)).toBe(250);
    }
  });

  it("doubles exponentially within the upper half of the nominal delay, capped at max", () => {
    const random = seededRandom(7);
    for (let attempt = 0; attempt < 40; attempt++) {
      const nominal = Math.min(5_000, 100 * 2 ** attempt);
      const delay = retryDelayMs(exponential, attempt, random);
      expect(delay).not.toBeNull();
      expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal / 2));
      expect(delay).toBeLessThan(nominal);
    }
    expect(retryDelayMs(exponential, 10_000, () => 0.5)).toBe(3_750);
  });

  it("jitters: different random draws give different delays, the same seed the same ones", () => {
    const a = Array.from({ length: 8 }, (_, i) => retryDelayMs(exponential, i, seededRandom(1)));
    const b = Array.from({ length: 8 }, (_, i) => retryDelayMs(exponential, i, seededRandom(1)));
    const c = Array.from({ length: 8 }, (_, i) => retryDelayMs(exponential, i, seededRandom(2)));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(retryDelayMs(exponential, 3, () => 0)).toBe(400);
    expect(retryDelayMs(exponential, 3, () => 0.999)).toBe(799);
  });

  it("plans the next wake time from the injected clock", () => {
    const plan = planRetry({
      policy: exponential,
      attempt: 2,
      maxAttempts: 5,
      clock,
      random: () => 0,
    });
    expect(plan).toEqual({
      retry: true,
      nextAttempt: 3,
      delayMs: 200,
      nextWakeAt: clock.now() + 200,
      nextWakeTime: "2026-01-01T00:00:00.200Z",
    });
  });

  it("stops when attempts are exhausted or the strategy is none", () => {
    expect(
      planRetry({ policy: exponential, attempt: 4, maxAttempts: 5, clock, random: Math.random }),
    ).toEqual({
      retry: false,
      reason: "attempts-exhausted",
    });
    const none: RetryPolicy = {
      strategy: "none",
      base_delay_ms: 0,
      max_delay_ms: 0,
      jitter: false,
    };
    expect(
      planRetry({ policy: none, attempt: 0, maxAttempts: 5, clock, random: Math.random }),
    ).toEqual({
      retry: false,
      reason: "strategy-none",
    });
  });

  it("gives seeded sequences in [0, 1)", () => {
    const random = seededRandom(123);
    for (let i = 0; i < 10_000; i++) {
      const x = random();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});
