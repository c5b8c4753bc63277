import { describe, expect, it } from "vitest";
import { entrySeq } from "../../src/checkpoint/durable/step-encoder.js";

/**
 * `entrySeq` reads the blob seq of a value-map entry (which decides whether a step may store a
 * delta) without parsing the entry; it must say what parsing it says.
 */
describe("entrySeq", () => {
  it("gives the seq JSON.parse gives for every entry form", () => {
    const entries = [
      "[2.4984487563572233,2]",
      "[7,1234]",
      "[-1,12]",
      "[1e+21,7]",
      '[1.5,0,"a,1"]',
      '[1.5,0,"[3,4]"]',
      "[3]",
      '["v,9",3]',
      "[[1,2],3]",
      "[null,4]",
      "[true]",
    ];
    for (const entry of entries) {
      const seq = (JSON.parse(entry) as unknown[])[1];
      expect(entrySeq(entry), entry).toBe(typeof seq === "number" ? seq : 0);
    }
  });
});
