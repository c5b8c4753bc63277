import { describe, expect, it } from "vitest";
import { jsonTooDeepAt } from "../../src/core/index.js";

const nested = (levels: number, leaf: unknown = 1): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { "a/b": [value] };
  return value;
};

describe("jsonTooDeepAt", () => {
  it("accepts a value exactly at the limit and points at the first level beyond it", () => {
    expect(jsonTooDeepAt([[[1]]], 3)).toBeUndefined();
    expect(jsonTooDeepAt([[[1]]], 2)).toBe("/0/0");
    // Each wrapper is two levels (object, array); keys are escaped as JSON Pointer segments.
    expect(jsonTooDeepAt(nested(2), 4)).toBeUndefined();
    expect(jsonTooDeepAt(nested(3), 4)).toBe("/a~1b/0/a~1b/0");
    expect(jsonTooDeepAt(nested(10_000))).toMatch(/^(\/a~1b\/0){128}$/);
  });

  it("finds a deep branch after shallow siblings, and does not call a cycle deep", () => {
    expect(jsonTooDeepAt({ x: 1, y: [2, 3], z: [[["deep"]]] }, 3)).toBe("/z/0/0");
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(jsonTooDeepAt(cyclic, 4)).toBeUndefined();
  });
});
