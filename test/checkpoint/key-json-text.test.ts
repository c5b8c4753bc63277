import { describe, expect, it } from "vitest";
import { keyJson } from "../../src/checkpoint/base/index.js";

describe("keyJson", () => {
  it("gives JSON.stringify's text, the first time and from its cache", () => {
    const names = [
      "count",
      "branch:to:n1",
      'say "hi"',
      "a\\b",
      "line\nbreak",
      "\u2028",
      "\ud800",
      "",
    ];
    for (const round of [0, 1])
      for (const name of names)
        expect([round, keyJson(name)]).toEqual([round, JSON.stringify(name)]);
  });

  it("stays right past the number of names it keeps", () => {
    for (let i = 0; i < 5000; i++) expect(keyJson(`n${i}"`)).toBe(JSON.stringify(`n${i}"`));
    expect(keyJson('n0"')).toBe(JSON.stringify('n0"'));
  });
});
