/**
 * Bad input, the cases the issue names: unbalanced parentheses, unknown functions, unbound
 * right-hand-side variables, a slot not in the template, a non-numeric comparison. CLIPS's
 * reaction to each program is recorded in bad/ (and re-checked live by differential.test.ts);
 * Keel need not word its errors like CLIPS, but it must fail clearly — a RULES_* code, the
 * line, the offending name — and a failed load must leave the engine exactly as it was.
 */
import { describe, expect, it } from "vitest";
import { KeelError } from "../../../src/core/index.js";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";
import { keelInProcess } from "../../support/cli.js";
import { listPrograms, type Program, recordedOutput, sourceOf } from "./programs.js";

interface BadCase {
  /** The program in bad/. */
  name: string;
  /** 1-based line of the form at fault. */
  line: number;
  /** What the message must name so a reader can find the problem. */
  mentions: RegExp[];
}

const CASES: BadCase[] = [
  { name: "unbalanced-parens", line: 3, mentions: [/\)/] },
  { name: "extra-close-paren", line: 2, mentions: [/\)/] },
  { name: "unknown-function", line: 3, mentions: [/frobnicate/] },
  { name: "unbound-rhs-variable", line: 3, mentions: [/\?y\b/] },
  { name: "slot-not-in-template", line: 4, mentions: [/priority/, /event/] },
  { name: "non-numeric-comparison", line: 3, mentions: [/abc/, /number|numeric|integer|float/i] },
];

function program(name: string): Program {
  const found = listPrograms("bad").find((candidate) => candidate.name === name);
  if (!found) throw new Error(`bad/${name}.clp is missing`);
  return found;
}

/** Catches what `work` throws, failing the test if it throws nothing or a non-KeelError. */
function thrownBy(work: () => unknown): KeelError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(KeelError);
    return error as KeelError;
  }
  throw new Error("expected an error, but none was thrown");
}

/** The constructs of a bad program (its def… lines), without the commands around them. */
function constructsOf(source: string): string {
  return source
    .split("\n")
    .filter((line) => line.startsWith("(def"))
    .join("\n");
}

/** An engine with a pack, facts and a pending activation, to prove a failed load changes none. */
function engineWithState(): RuleEngine {
  const engine = new RuleEngine();
  engine.load(
    [
      "(deftemplate prior-event (slot id) (slot level (default 1)))",
      "(defrule prior-rule (prior-event (id ?i) (level ?l)) => (assert (prior-seen ?i ?l)))",
    ].join("\n"),
  );
  engine.reset();
  engine.assert("(prior-event (id 7))");
  return engine;
}

describe("every bad program has its CLIPS reaction recorded", () => {
  it.each(CASES.map((badCase) => badCase.name))("bad/%s", (name) => {
    expect(recordedOutput(program(name))).toBeDefined();
  });

  it("CLIPS reports the errors it detects ([CODE] messages) and carries on", () => {
    expect(recordedOutput(program("unknown-function"))).toContain(
      "Missing function declaration for frobnicate",
    );
    expect(recordedOutput(program("unbound-rhs-variable"))).toContain("Undefined variable y");
    expect(recordedOutput(program("slot-not-in-template"))).toContain("Invalid slot priority");
    expect(recordedOutput(program("non-numeric-comparison"))).toContain(
      "Function > expected argument #1 to be of type integer or float",
    );
  });
});

describe.each(CASES)("bad/$name", ({ name, line, mentions }) => {
  it("runBatch stops with a RULES_PARSE error naming the line and the problem", () => {
    const result = runBatch(sourceOf(program(name)));
    expect(result.error, "runBatch reports an error").toBeInstanceOf(KeelError);
    const error = result.error as KeelError;
    expect(error.code).toBe("RULES_PARSE");
    // The line of the form at fault (for an unclosed form, where it opened), not just EOF.
    expect(error.message).toContain(`line ${line}`);
    for (const mention of mentions) expect(error.message).toMatch(mention);
  });

  it("a failed load leaves the engine's rules, facts and agenda exactly as they were", () => {
    const engine = engineWithState();
    const snapshot = engine.snapshot();
    const rules = engine.ruleNames();
    const facts = engine.facts();
    const agenda = engine.agendaEntries();

    const error = thrownBy(() => engine.load(constructsOf(sourceOf(program(name)))));
    expect(error.code).toBe("RULES_PARSE");

    expect(engine.snapshot()).toEqual(snapshot);
    expect(engine.ruleNames()).toEqual(rules);
    expect(engine.facts()).toEqual(facts);
    expect(engine.agendaEntries()).toEqual(agenda);
    // The good rule defined in the same file was not half-loaded either.
    expect(engine.ruleNames()).not.toContain("good");
    // And the engine still works: the prior rule fires on the prior fact.
    expect(engine.run().map((firing) => firing.rule)).toEqual(["prior-rule"]);
  });
});

describe("errors outside loading", () => {
  it("asserting a slot the template lacks is refused and names the slot; facts unchanged", () => {
    const engine = new RuleEngine();
    engine.load("(deftemplate event (slot id) (slot severity))");
    engine.reset();
    const facts = engine.facts();
    const error = thrownBy(() => engine.assert("(event (id 1) (colour red))"));
    expect(error.message).toMatch(/colour/);
    expect(engine.facts()).toEqual(facts);
  });

  it("a predicate comparing a symbol with > names the rule and the pattern", () => {
    const engine = new RuleEngine();
    engine.load("(defrule runtime-symbol (a ?x&:(> ?x 2)) => (assert (big ?x)))");
    engine.reset();
    const error = thrownBy(() => {
      engine.assert("(a foo)");
      engine.run();
    });
    expect(error.code).toBe("RULES_RUNTIME");
    expect(error.details.rule).toBe("runtime-symbol");
    expect(error.details.pattern).toBe(1);
    expect(error.message).toMatch(/runtime-symbol/);
  });

  it("keel rules run on a bad file exits non-zero with the error on stderr", async () => {
    const run = await keelInProcess(["rules", "run", program("unknown-function").clpPath]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/RULES_PARSE/);
    expect(run.stderr).toMatch(/frobnicate/);
  });
});
