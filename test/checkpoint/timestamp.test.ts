/** A checkpoint's `ts` is `toISOString` of the clock, however it is made. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { isoNow, newCheckpointId } from "../../src/checkpoint/index.js";

describe("isoNow", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("matches toISOString across milliseconds, seconds, days and far years", () => {
    const times = [
      Date.UTC(2026, 10, 28, 12, 0, 0, 0),
      Date.UTC(2026, 10, 28, 12, 0, 0, 7),
      Date.UTC(2026, 10, 28, 12, 0, 0, 999),
      Date.UTC(2026, 10, 28, 12, 0, 1, 0),
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29, 0, 0, 0, 42),
      Date.UTC(12_000, 0, 1, 0, 0, 0, 5),
      Date.UTC(2026, 10, 29, 0, 0, 0, 43),
    ];
    const now = vi.spyOn(Date, "now");
    for (const ms of times) {
      now.mockReturnValue(ms);
      expect(isoNow()).toBe(new Date(ms).toISOString());
    }
  });
});

describe("newCheckpointId's text", () => {
  it("is a UUIDv7 carrying the millisecond it was made in", () => {
    const ms = Date.UTC(2026, 10, 28, 12, 0, 0, 123) + 3_600_000 * 24 * 365;
    const id = newCheckpointId(undefined, ms);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
  });
});
