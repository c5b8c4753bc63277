import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/rules/index.js";

/** Runs a program and returns the lines its rules printed. */
function printed(lines: string[]): string[] {
  const out = runBatch([...lines, "(reset)", "(run)", "(exit)"].join("\n")).output;
  return out.split("\n").filter((l) => l !== "");
}

describe("join tests on single values at fixed places", () => {
  it("compares a slot with an earlier pattern's variable, negated or not", () => {
    const out = printed([
      "(deftemplate p (slot name) (slot sex) (slot hobby))",
      "(deffacts d (p (name a) (sex m) (hobby x)) (p (name b) (sex f) (hobby x)) (p (name c) (sex m) (hobby x)))",
      '(defrule pair (p (name ?n) (sex ?s) (hobby ?h)) (p (name ?m) (sex ~?s) (hobby ?h)) => (printout t ?n "-" ?m crlf))',
    ]);
    expect(out.sort()).toEqual(["a-b", "b-a", "b-c", "c-b"]);
  });

  it("checks several fields in one join, next to literal and same-fact constraints", () => {
    const out = printed([
      "(deftemplate a (slot x) (slot y))",
      "(deftemplate b (slot u) (slot v) (slot w))",
      "(deffacts d (a (x 1) (y 2)) (b (u 3) (v 3) (w 1)) (b (u 3) (v 4) (w 9)) (b (u red) (v 5) (w 9)) (b (u 5) (v 5) (w 2)))",
      '(defrule r (a (x ?x) (y ?y)) (b (u ?u&~red&~?x) (v ?v&~?u) (w ~?y)) => (printout t ?u " " ?v crlf))',
    ]);
    expect(out).toEqual(["3 4"]);
  });

  it("compares ordered facts' fields before any multifield", () => {
    const out = printed([
      "(deffacts d (a 1 2) (b 1 9 x) (b 2 9 x) (b 1 2 x))",
      "(defrule r (a ?x ?y) (b ~?x ?z&~?y $?) => (printout t ?z crlf))",
    ]);
    expect(out).toEqual(["9"]);
  });
});
