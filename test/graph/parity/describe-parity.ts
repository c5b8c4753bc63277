/**
 * Declares one vitest case per parity program: LangGraph.js runs it first and its output is the
 * expectation; Keel must produce equal output. Nothing is hard-coded, so a program that is wrong
 * about LangGraph.js cannot make Keel pass or fail on its own.
 */
import { describe, expect, it } from "vitest";
import { langgraph, loadKeel } from "./api.js";
import { type Program, runOn } from "./harness.js";

/**
 * `documentedDifferences` maps a program to the deliberate difference from LangGraph.js, listed
 * in docs/graph.md, that makes its outputs differ; such a case is declared with `it.fails`, so it
 * starts failing the suite the day the outputs agree and the entry should go.
 */
export function describeParity(
  title: string,
  programs: Record<string, Program>,
  documentedDifferences: Record<string, string> = {},
): void {
  describe(`parity: ${title}`, () => {
    for (const [name, program] of Object.entries(programs)) {
      const difference = documentedDifferences[name];
      const declare = difference === undefined ? it : it.fails;
      const label =
        difference === undefined ? name : `${name} (documented difference: ${difference})`;
      declare(label, async () => {
        const expected = await runOn(langgraph, program);
        const actual = await runOn(await loadKeel(), program);
        expect(actual).toEqual(expected);
      });
    }
  });
}
