/**
 * The batch result as data must tell the same story as the CLIPS transcript: `facts` equals the
 * final `(facts)` listing CLIPS printed, and `firings` names the rules CLIPS fired, in order,
 * with the bindings their printouts show. This is what `keel rules run --json` prints.
 */
import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/rules/index.js";
import { listPrograms, type Program, recordedOutput, sourceOf } from "./programs.js";

const ALL = [...listPrograms("corpus"), ...listPrograms("generated")];

/** The last non-blank line before `(exit)`. */
function lastCommand(source: string): string {
  const lines = source.split("\n").map((line) => line.trim());
  const exit = lines.indexOf("(exit)");
  return (
    lines
      .slice(0, exit)
      .filter((line) => line !== "")
      .at(-1) ?? ""
  );
}

/** `[index, text]` of the fact listing that ends the transcript. */
function finalFactListing(transcript: string): [number, string][] {
  const lines = transcript.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (!/^For a total of \d+ facts?\.$/.test(lines.at(-1) ?? "")) return [];
  const listing: [number, string][] = [];
  for (let index = lines.length - 2; index >= 0; index--) {
    const match = /^f-(\d+)\s+(.*)$/.exec(lines[index] ?? "");
    if (!match) break;
    listing.unshift([Number(match[1]), match[2] ?? ""]);
  }
  return listing;
}

const ENDING_IN_FACTS = ALL.filter((program) => lastCommand(sourceOf(program)) === "(facts)");

describe("facts as data equal CLIPS's final (facts) listing", () => {
  it("the corpus has programs that end by listing facts", () => {
    expect(ENDING_IN_FACTS.length).toBeGreaterThanOrEqual(40);
  });

  for (const program of ENDING_IN_FACTS) {
    it(`${program.kind}/${program.name}`, () => {
      const listing = finalFactListing(recordedOutput(program) ?? "");
      expect(listing.length, "the recording ends with a fact listing").toBeGreaterThan(0);
      const facts = runBatch(sourceOf(program)).facts;
      expect(facts.map((fact) => [fact.id, fact.text])).toEqual(listing);
    });
  }
});

/** Renders a plain binding the way CLIPS printed it in the generated programs' printouts. */
function rendered(value: unknown): string {
  if (Array.isArray(value)) return `(${value.map(rendered).join(" ")})`;
  return String(value);
}

/** `rule-N ?v1=3 ?m2=(a b)` lines: the generated rules print their name and bindings first. */
function printedFirings(program: Program): { rule: string; bindings: Map<string, string> }[] {
  const transcript = recordedOutput(program) ?? "";
  return transcript
    .split("\n")
    .filter((line) => /^rule-\d+\b/.test(line))
    .map((line) => {
      const bindings = new Map<string, string>();
      for (const match of line.matchAll(/\?(\w+)=(\([^)]*\)|\S+)/g)) {
        bindings.set(match[1] ?? "", match[2] ?? "");
      }
      return { rule: line.split(" ")[0] ?? "", bindings };
    });
}

describe("firings as data: the rules CLIPS fired, in order, with the same bindings", () => {
  for (const program of listPrograms("generated").filter((p) => p.name.startsWith("gen-"))) {
    it(`generated/${program.name}`, () => {
      const printed = printedFirings(program);
      const firings = runBatch(sourceOf(program)).firings;
      expect(firings.map((firing) => firing.rule)).toEqual(printed.map((entry) => entry.rule));
      firings.forEach((firing, index) => {
        for (const [name, value] of printed[index]?.bindings ?? []) {
          expect(firing.bindings, `${firing.rule} binds ?${name}`).toHaveProperty(name);
          expect(rendered(firing.bindings[name]), `${firing.rule} ?${name}`).toBe(value);
        }
      });
    });
  }
});
