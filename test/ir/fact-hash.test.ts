import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KeelError } from "../../src/core/index.js";
import { factContentHash, pythonCanonicalJson } from "../../src/ir/index.js";

interface Vector {
  name: string;
  fact_json: string | null;
  canonical: string;
  hash: string;
}

const { vectors } = JSON.parse(
  readFileSync(new URL("./fixtures/fact-hash-vectors.json", import.meta.url), "utf8"),
) as { vectors: Vector[] };

// Facts JSON text cannot carry: built here exactly as make-fact-vectors.py builds them.
const SPECIAL: Record<string, unknown> = {
  "big-int": { n: 2n ** 70n, m: -(2n ** 64n) },
  "nan-infinity": {
    nan: Number.NaN,
    inf: Number.POSITIVE_INFINITY,
    ninf: Number.NEGATIVE_INFINITY,
  },
};

const DIVERGES = "integral-float-diverges";

describe("factContentHash matches Python's json.dumps + blake2b(digest_size=16)", () => {
  for (const vector of vectors.filter((v) => v.name !== DIVERGES)) {
    it(vector.name, () => {
      const fact = vector.fact_json === null ? SPECIAL[vector.name] : JSON.parse(vector.fact_json);
      expect(pythonCanonicalJson(fact)).toBe(vector.canonical);
      expect(factContentHash(fact)).toBe(vector.hash);
      expect(factContentHash(fact)).toMatch(/^[0-9a-f]{32}$/);
    });
  }

  it("hashes an integral float as Python's int (the one documented divergence)", () => {
    const vector = vectors.find((v) => v.name === DIVERGES);
    const fact = JSON.parse(vector?.fact_json ?? "null");
    expect(pythonCanonicalJson(fact)).toBe('{"x":1,"y":1000000000000000}');
    expect(factContentHash(fact)).not.toBe(vector?.hash);
  });

  it("does not depend on key order", () => {
    expect(factContentHash({ a: 1, b: [2, { d: 3, c: 4 }] })).toBe(
      factContentHash({ b: [2, { c: 4, d: 3 }], a: 1 }),
    );
  });

  it("refuses values Python's json cannot write", () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const bad of [
      circular,
      { when: new Date(0) },
      { f: () => 1 },
      { s: Symbol("x") },
      new Map(),
    ]) {
      expect(() => factContentHash(bad)).toThrow(KeelError);
    }
    // undefined is skipped in objects and written as null in arrays, as JSON does.
    expect(pythonCanonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });
});
