import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACTION_KINDS, dumps, loads, validate } from "../../src/ir/index.js";

const dir = new URL("../../examples/", import.meta.url);
// The IR documents in examples/ (other files there belong to other demos).
const FILES = ["triage.json", "refund-approval.json", "research-fanout.json"];
const documents = FILES.map((file) => ({ file, text: readFileSync(new URL(file, dir), "utf8") }));

describe("examples/", () => {
  for (const { file, text } of documents) {
    it(`${file} is a valid IR document that round-trips`, () => {
      expect(validate(text)).toEqual([]);
      const wire = dumps(loads(text));
      expect(dumps(loads(wire))).toBe(wire);
    });
  }

  it("use every action kind between them", () => {
    const kinds = new Set(
      documents.flatMap(({ text }) => loads(text).rules.flatMap((r) => r.then.map((a) => a.kind))),
    );
    expect([...kinds].sort()).toEqual([...ACTION_KINDS].sort());
  });
});
