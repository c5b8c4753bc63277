/**
 * The savers' per-step text caches give exactly the text they stand for: a row is hashed as
 * text, and `ts` is left out of a row only when the id's time gives it back.
 */
import { describe, expect, it } from "vitest";
import { checkpointIdTime, newCheckpointId } from "../../src/checkpoint/base/checkpoint-id.js";
import { isoOfId } from "../../src/checkpoint/durable/compact-row.js";
import { versionText } from "../../src/checkpoint/durable/version-text.js";

describe("the savers' text caches", () => {
  it("versionText is JSON.stringify's text, for numbers seen again and values of any kind", () => {
    const numbers = Array.from({ length: 40 }, (_, i) => i + Math.random());
    const values: unknown[] = [-0, 0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, "v1", null];
    // Each number again a few conversions later (as versions_seen repeats a step's versions),
    // and again after the cache has moved on.
    for (let i = 0; i < numbers.length; i++) values.push(numbers[i], numbers[Math.max(0, i - 3)]);
    values.push(...numbers, { n: 1 }, ...values);
    for (const value of values) expect(versionText(value)).toBe(JSON.stringify(value) ?? "null");
  });

  it("isoOfId agrees with the id's own time for ids of one millisecond and for odd ids", () => {
    const isoOf = (id: string) => {
      const ms = checkpointIdTime(id);
      return ms === undefined ? undefined : new Date(ms).toISOString();
    };
    const id = newCheckpointId();
    const prefix = id.slice(0, 15);
    const ids = [
      id,
      newCheckpointId(id),
      `${prefix}abc${id.slice(18)}`,
      `${prefix}ABC${id.slice(18)}`,
      // Same millisecond, no counter where a UUIDv7 has one: not a time the id carries.
      `${prefix}zzz${id.slice(18)}`,
      `${prefix} 12${id.slice(18)}`,
      `${id.slice(0, 14)}4${id.slice(15)}`,
      `${id}0`,
      "not-a-uuid",
      id,
    ];
    for (const each of ids) expect(isoOfId(each)).toBe(isoOf(each));
  });
});
