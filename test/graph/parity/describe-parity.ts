/**
 * Declares one vitest case per parity program: LangGraph.js runs it first and its output is the
 * expectation; Keel must produce equal output. Nothing is hard-coded, so a program that is wrong
 * about LangGraph.js cannot make Keel pass or fail on its own.
 */
import { describe, expect, it } from "vitest";
import { langgraph, loadKeel } from "./api.js";
import { type Program, runOn } from "./harness.js";

/**
 * A deliberate difference from LangGraph.js, listed in docs/graph.md, that makes a program's
 * outputs differ. Both sides are pinned: Keel must give exactly `keel` (e.g. its error codes) and
 * LangGraph.js exactly `langgraph`, each in its own case, so a crash on either side, or the day
 * the outputs agree, fails the suite.
 */
export interface DocumentedDifference {
  /** The entry in docs/graph.md, "Deliberate differences from LangGraph.js". */
  doc: string;
  keel: unknown;
  langgraph: unknown;
}

export function describeParity(
  title: string,
  programs: Record<string, Program>,
  documentedDifferences: Record<string, DocumentedDifference> = {},
): void {
  describe(`parity: ${title}`, () => {
    for (const [name, program] of Object.entries(programs)) {
      const difference = documentedDifferences[name];
      if (difference === undefined) {
        it(name, async () => {
          const expected = await runOn(langgraph, program);
          const actual = await runOn(await loadKeel(), program);
          expect(actual).toEqual(expected);
        });
        continue;
      }
      it(`${name}: Keel (documented difference: ${difference.doc})`, async () => {
        expect(await runOn(await loadKeel(), program)).toEqual(difference.keel);
      });
      it(`${name}: LangGraph.js, the other side of that difference`, async () => {
        expect(await runOn(langgraph, program)).toEqual(difference.langgraph);
      });
    }
    it("documents differences only for programs that exist", () => {
      expect(Object.keys(documentedDifferences).filter((name) => !(name in programs))).toEqual([]);
    });
  });
}
