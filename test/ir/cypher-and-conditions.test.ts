import { describe, expect, it } from "vitest";
import {
  compileDocument,
  cypherViolation,
  documentWarnings,
  IrValidationError,
  loads,
  type ModelInput,
  validate,
} from "../../src/ir/index.js";

const withConfig = (config: Record<string, unknown>): ModelInput<"IRDocument"> => ({
  ir_version: "1.1.0",
  id: "run:cypher",
  nodes: [{ id: "query", kind: "echo", config }],
});

describe("portable Cypher in node config", () => {
  it.each([
    ["MATCH (a) WITH apoc.coll.sum([1]) AS x RETURN x", "banned-procedure"],
    ["CALL db.labels() YIELD label RETURN label", "banned-procedure"],
    ["CALL GDS.pageRank.stream('g') YIELD nodeId RETURN nodeId", "banned-procedure"],
    ["MATCH (a)-[*]->(b) RETURN b", "varlen-unbounded"],
    ["MATCH (a)-[:KNOWS*2..]->(b) RETURN b", "varlen-unbounded"],
    ["MATCH ((a)-->(b)){1,} RETURN a", "varlen-unbounded"],
    ["CALL my.proc() YIELD * RETURN 1", "yield-star"],
    ["MATCH (n) CALL { WITH n RETURN n AS m } RETURN m", "call-subquery"],
    ["MATCH (a) RETURN [(a)-->(b) | b.name]", "path-comprehension"],
    ["MATCH (n) RETURN n {.name, .age}", "map-projection"],
    ["MATCH p = shortestPath((a)-[*..5]-(b)) RETURN p", "shortest-path"],
    ["LOAD CSV FROM 'file:///x.csv' AS row RETURN row", "load-csv"],
    ["SHOW INDEXES", "show-command"],
    ["MATCH (a RETURN a", "parse-error"],
    ["RETURN 'never closed", "parse-error"],
    ["free text, not a query", "parse-error"],
  ])("refuses %s (%s)", (query, rule) => {
    expect(cypherViolation(query)?.rule).toBe(rule);
  });

  it.each([
    "MATCH (a:User) RETURN a.name",
    "MATCH (a)-[:KNOWS*1..3]->(b) RETURN b",
    "MATCH (a)-[*3]->(b) RETURN b",
    "MATCH (db:Database) RETURN db.name",
    "MATCH (a) WHERE a.note = 'apoc.x()' RETURN a",
    "MATCH (a) // CALL apoc.help('x')\nRETURN a",
    "RETURN [(1 + 2) - 3] AS xs",
    "MATCH (a {name: 'Ann'})-[r]->(b) WHERE r.weight > 1.5 RETURN b",
  ])("accepts %s", (query) => {
    expect(cypherViolation(query)).toBeUndefined();
  });

  it("reports an unportable query under `cypher` or `*_cypher` at the config key", () => {
    const problems = validate(
      withConfig({
        cypher: "MATCH (a)-[*]->(b) RETURN b",
        filter_cypher: "CALL db.labels()",
        note: "MATCH (a)-[*]->(b) RETURN b",
      }),
    );
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ["cypher_unportable", "/nodes/0/config/cypher"],
      ["cypher_unportable", "/nodes/0/config/filter_cypher"],
    ]);
    expect(problems[0]?.message).toContain("varlen-unbounded");
    expect(problems[0]?.hint).toContain("upper bound");
  });

  it("leaves portable queries and non-text values alone", () => {
    expect(validate(withConfig({ cypher: "MATCH (a:User) RETURN a.name" }))).toEqual([]);
    expect(validate(withConfig({ cypher: { match: "(a)-[*]->(b)" } }))).toEqual([]);
  });
});

describe("a rule condition that is not CLIPS", () => {
  const freeText = (version: string): ModelInput<"IRDocument"> => ({
    ir_version: version,
    id: "run:free-text",
    nodes: [{ id: "work", kind: "echo" }],
    // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
    rules: [{ id: "r-1", when: "free text the engine parses", then: [{ kind: "halt" }] }],
  });

  it("is refused by validate in a 1.0.0 document", () => {
    expect(validate(freeText("1.0.0")).map((p) => [p.code, p.path])).toEqual([
      ["rule_invalid", "/rules/0/when"],
    ]);
  });

  it("validates at 1.1.0, with a warning, and compiling refuses it", async () => {
    const doc = freeText("1.1.0");
    expect(validate(doc)).toEqual([]);
    expect(documentWarnings(loads(JSON.stringify(doc))).map((w) => [w.code, w.path])).toEqual([
      ["rule_invalid", "/rules/0/when"],
    ]);
    const failure = await compileDocument(doc).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(IrValidationError);
    expect((failure as IrValidationError).problems.map((p) => [p.code, p.path])).toEqual([
      ["rule_invalid", "/rules/0/when"],
    ]);
  });
});
