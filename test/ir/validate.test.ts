import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  isModelName,
  type Problem,
  validate,
  validateDocument,
  validateModel,
} from "../../src/ir/index.js";

interface Case {
  name: string;
  model?: string;
  input?: unknown;
  text?: string;
  problems: { code: string; path: string }[];
}

const dir = new URL("./fixtures/validation/", import.meta.url);
const files = readdirSync(dir).filter((file) => file.endsWith(".json"));

function run(testCase: Case): Problem[] {
  const input = testCase.text ?? testCase.input;
  if (testCase.model === undefined) return validate(input);
  if (!isModelName(testCase.model))
    throw new Error(`fixture names unknown model ${testCase.model}`);
  return validateModel(testCase.model, input);
}

describe("validation fixtures", () => {
  it("has a fixture file per stage and one for the models", () => {
    expect(files.sort()).toEqual([
      "1-parse.json",
      "2-structure.json",
      "3-ids.json",
      "4-version.json",
      "5-references.json",
      "models.json",
    ]);
  });

  for (const file of files) {
    const { cases } = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as { cases: Case[] };
    describe(file, () => {
      for (const testCase of cases) {
        it(testCase.name, () => {
          const problems = run(testCase);
          expect(problems.map(({ code, path }) => ({ code, path }))).toEqual(testCase.problems);
          for (const problem of problems) {
            expect(Object.keys(problem).sort()).toEqual(
              ["actual", "code", "expected", "hint", "message", "path"].sort(),
            );
            for (const value of Object.values(problem)) expect(typeof value).toBe("string");
            expect(problem.message.length).toBeGreaterThan(0);
            expect(problem.hint.length).toBeGreaterThan(0);
          }
        });
      }
    });
  }
});

describe("validate", () => {
  const seedExample = readFileSync(new URL("../../examples/triage.json", import.meta.url), "utf8");

  it("accepts the seed's triage example as text and as an object", () => {
    expect(validate(seedExample)).toEqual([]);
    expect(validate(JSON.parse(seedExample))).toEqual([]);
  });

  it("returns the parsed document with defaults when valid", () => {
    const result = validateDocument(seedExample);
    expect(result.ok).toBe(true);
    expect(result.document?.tools).toEqual([]);
    expect(result.document?.state_class).toBeNull();
  });

  it("parses rule conditions: problems at /rules/<i>/when with the line and column in `when`", () => {
    const doc = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [{ id: "a", kind: "echo" }],
      rules: [{ id: "r", when: "(a 1)\n  (b ?x&:(foo ?x))" }],
    };
    expect(validate(doc)).toEqual([
      {
        code: "rule_invalid",
        path: "/rules/0/when",
        message: "The rule's `when` is not valid CLIPS: line 2, column 10: unknown function 'foo'.",
        expected: expect.any(String),
        actual: JSON.stringify(doc.rules[0]?.when),
        hint: expect.stringContaining("registerFunction"),
      },
    ]);
  });

  it("reports a parse error once, at /, with where it broke", () => {
    const [problem, ...rest] = validate('{\n  "id": "g",\n  oops\n}');
    expect(rest).toEqual([]);
    expect(problem?.code).toBe("json_invalid");
    expect(problem?.path).toBe("/");
    expect(problem?.message).toContain("line 3");
  });

  it("renders expected and actual for people", () => {
    const [problem] = validate({ ir_version: "1.0.0", id: "g", nodes: [{ id: "a", kind: 42 }] });
    expect(problem).toMatchObject({ expected: "string", actual: "42", code: "string_type" });
    const [missing] = validate({ id: "g", nodes: [] });
    expect(missing).toMatchObject({ code: "missing", actual: "missing", path: "/ir_version" });
  });

  it("reports unknown node kinds when the registered kinds are given", () => {
    const doc = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [
        { id: "a", kind: "echo" },
        { id: "b", kind: "dspy" },
        { id: "c", kind: "my/module:Summarise" },
      ],
    };
    expect(validate(doc)).toEqual([]);
    const problems = validate(doc, { nodeKinds: ["echo", "halt"] });
    expect(problems.map((p) => [p.code, p.path])).toEqual([["unknown_node_kind", "/nodes/1/kind"]]);
  });

  it("never throws, whatever it is given", () => {
    const circular: Record<string, unknown> = { ir_version: "1.0.0", id: "g" };
    circular.nodes = [circular];
    const inputs: unknown[] = [
      undefined,
      0,
      Number.NaN,
      Symbol("x"),
      () => 1,
      new Date(0),
      circular,
      // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
      { ir_version: "1.0.0", id: "g", nodes: [], rules: [{ id: "r", then: [null, [], 1] }] },
      "\u0000",
      "{".repeat(10_000),
    ];
    for (const input of inputs) {
      const problems = validate(input);
      expect(Array.isArray(problems)).toBe(true);
      expect(problems.length).toBeGreaterThan(0);
    }
  });
});
