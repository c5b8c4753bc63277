import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemorySaver } from "../../src/checkpoint/index.js";
import {
  compileAuthoring,
  compileDocument,
  documentText,
  factStyleOf,
  IrValidationError,
  isAuthoringFormat,
  loads,
  validate,
} from "../../src/ir/index.js";
import { keelJson } from "./cli-support.js";

const REVIEW = `
id: review
state:
  draft: str
  verdict: { type: str, route: true }
nodes:
  write: { kind: echo }
  check: { kind: grade, tools: [std.lint] }
routes:
  write: check
  check: { pass: done, fail: write }
`;

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(IrValidationError);
    return (error as IrValidationError).problems.map((p) => `${p.code}@${p.path}`);
  }
  throw new Error("expected IrValidationError");
}

describe("the authoring format", () => {
  it("compiles to a valid IR document whose rules use the when mapping sugar", async () => {
    const doc = JSON.parse(documentText(REVIEW, "review.yaml"));
    expect(validate(doc)).toEqual([]);
    expect(doc.id).toBe("graph:review");
    expect(doc.state_schema).toEqual({ draft: "str", verdict: "str" });
    expect(doc.nodes[1]).toEqual({ id: "check", kind: "grade", config: { tools: ["std.lint@1"] } });
    const rules = doc.rules.map((rule: Record<string, unknown>) => [rule.id, rule.when, rule.then]);
    expect(rules).toEqual([
      ["r-write", { node: "write" }, [{ kind: "goto", target: "check" }]],
      [
        "r-check-pass",
        { node: "check", verdict: "pass" },
        [{ kind: "halt", reason: "check complete" }],
      ],
      ["r-check-fail", { node: "check", verdict: "fail" }, [{ kind: "goto", target: "write" }]],
    ]);
    expect(factStyleOf(loads(JSON.stringify(doc)))).toBe("template");
  });

  it("runs: the verdict a node writes picks the route through the mirrored template facts", async () => {
    const doc = JSON.parse(documentText(REVIEW, "review.yaml"));
    let grades = 0;
    const compiled = await compileDocument(doc, {
      nodeKinds: { grade: () => () => ({ verdict: ++grades < 2 ? "fail" : "pass" }) },
      checkpointer: new MemorySaver(),
    });
    const out = await compiled.graph.invoke(
      { draft: "v1", verdict: "" },
      { configurable: { thread_id: "review" } },
    );
    const path = (out.__ir_transitions as { from: string; to: string }[]).map(
      (t) => `${t.from}>${t.to}`,
    );
    expect(path).toEqual(["write>check", "check>write", "write>check", "check>__end__"]);
  });

  it("reports every problem at its place", async () => {
    expect(
      problemsOf(() =>
        compileAuthoring({
          id: "Bad Id",
          extra: 1,
          state: { "not-ident": "str", n: { type: "complex" } },
          nodes: { a: { kind: "echo", spec: "x.yaml" }, b: "echo" },
          routes: { a: "nowhere", c: "a", b: { yes: "a" } },
          lm: { port: "x" },
        }),
      ),
    ).toEqual([
      "authoring_invalid@/extra",
      "authoring_invalid@/id",
      "authoring_invalid@/state/not-ident",
      "authoring_invalid@/state/n/type",
      "authoring_invalid@/nodes/a/spec",
      "authoring_invalid@/nodes/b",
      "authoring_invalid@/routes/a",
      "authoring_invalid@/routes/c",
      "authoring_invalid@/routes/b",
      "authoring_invalid@/routes/b",
      "missing@/lm/model",
      "int_type@/lm/port",
    ]);
    expect(problemsOf(() => compileAuthoring([]))).toEqual(["authoring_invalid@"]);
    expect(problemsOf(() => compileAuthoring({ nodes: {} }))).toEqual(["authoring_invalid@/nodes"]);
  });

  it("tells the formats apart, and passes JSON and YAML IR documents through", async () => {
    expect(isAuthoringFormat({ nodes: {} })).toBe(true);
    expect(isAuthoringFormat({ ir_version: "1.1.0", nodes: [] })).toBe(false);
    const json = '{"ir_version":"1.1.0","id":"g","nodes":[]}';
    expect(documentText(json, "g.json")).toBe(json);
    expect(JSON.parse(documentText("ir_version: 1.1.0\nid: g\nnodes: []\n", "g.yml"))).toEqual(
      JSON.parse(json),
    );
    expect(problemsOf(() => documentText("a: [1,\n", "bad.yaml"))).toEqual(["yaml_invalid@"]);
  });
});

describe("keel ir compile-authoring and keel run of YAML", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-authoring-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the IR of an authoring file", async () => {
    const file = join(dir, "hello.yaml");
    writeFileSync(file, "id: hello\nnodes: { a: { kind: echo } }\nroutes: { a: done }\n");
    const { code, out } = await keelJson(["ir", "compile-authoring", file]);
    expect(code).toBe(0);
    expect(out.document).toMatchObject({ ir_version: "1.0.0", id: "graph:hello" });
  });
});
