/**
 * The hand-made JSON of the savers' hot path gives exactly JSON.stringify's text (a checkpoint
 * row is hashed as text, so one character of difference would make it unreadable).
 */
import { describe, expect, it } from "vitest";
import { jsonOf, jsonSerde, jsonString } from "../../src/checkpoint/base/index.js";
import { seenJsonOf } from "../../src/checkpoint/durable/value-map.js";

const PIECES = [
  "a",
  '"',
  "\\",
  "\n",
  "\u0001",
  "\u001f",
  " ",
  "\ud83d",
  "\ude00",
  "\u2028",
  "é",
  "/",
];

describe("JSON text without JSON.stringify", () => {
  it("quotes strings as JSON.stringify does, escapes and lone surrogates included", () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = next() % 12;
      for (let j = 0; j < length; j++) text += PIECES[next() % PIECES.length];
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
    const long = `${"x".repeat(1000)}"`;
    expect(jsonString(long)).toBe(JSON.stringify(long));
  });

  it("writes numbers, versions and primitives as JSON.stringify does", () => {
    const values = [
      0,
      -0,
      1.5,
      1e21,
      1e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      101.37452640770194,
    ];
    for (const value of [...values, "x", null, undefined, true, { a: 1 }])
      expect(jsonOf(value)).toBe(JSON.stringify(value) ?? "null");
    for (const value of [0, 1.5, 'a"b', null, true, false, "", "\ud800"])
      expect(jsonSerde.dumps(value)).toBe(JSON.stringify(value));
  });

  it("writes versions_seen as JSON.stringify does", () => {
    const seen = { n1: { "branch:to:n1": 1.234, 'a"b': 2 }, "x\ny": {}, z: { u: undefined } };
    expect(seenJsonOf(seen as never)).toBe(JSON.stringify(seen));
    expect(seenJsonOf({})).toBe("{}");
    expect(seenJsonOf(undefined)).toBe("{}");
  });
});
