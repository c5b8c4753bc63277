import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileDocument, structuralHash, validateDocument } from "../../src/ir/index.js";
import { keelInProcess } from "../store/cli-in-process.js";

// A new run's input is checked against the document's state_schema: every field is required (as
// in the Pydantic model the seed compiles it to) unless its type ends in "?".
const root = new URL("../../", import.meta.url).pathname;
const refund = join(root, "examples/refund-approval.json");

function db(): string {
  return join(mkdtempSync(join(tmpdir(), "keel-run-input-")), "keel.db");
}

describe("a run's input against the state schema", () => {
  it("{} is refused with every missing required field, exit 1, and no run record", async () => {
    const file = db();
    const result = await keelInProcess(["run", refund, "--input", "{}", "--db", file, "--json"]);
    expect(result.exitCode).toBe(1);
    const error = result.json.error as {
      code: string;
      details: { problems: { code: string; path: string }[] };
    };
    expect(error.code).toBe("IR_INVALID");
    expect(error.details.problems.map((p) => `${p.code} ${p.path}`).sort()).toEqual([
      "missing /amount",
      "missing /customer_id",
    ]);
    const runs = await keelInProcess(["runs", "list", "--db", file, "--json"]);
    expect(runs.json.threads).toEqual([]);
  });

  it("reports a wrong type and a missing field together", async () => {
    const result = await keelInProcess([
      ...["run", refund, "--input", '{"amount":"lots","fraud_score":null}'],
      ...["--db", db(), "--json"],
    ]);
    expect(result.exitCode).toBe(1);
    const problems = (result.json.error as { details: { problems: { code: string }[] } }).details
      .problems;
    // fraud_score is optional ("float?"), so null is accepted.
    expect(problems.map((p) => p.code).sort()).toEqual(["float_type", "missing"]);
  });

  it("an optional field may be left out or null; a required one may not be null", async () => {
    const doc = {
      ir_version: "1.0.0",
      id: "graph:opt",
      nodes: [{ id: "a", kind: "echo" }],
      state_schema: { name: "str", note: "str?" },
    };
    const compiled = await compileDocument(doc);
    expect(compiled.checkInput({ name: "x" }, "input", { start: true })).toEqual([]);
    expect(compiled.checkInput({ name: "x", note: null }, "input", { start: true })).toEqual([]);
    expect(
      compiled.checkInput({ name: null }, "input", { start: true }).map((p) => p.code),
    ).toEqual(["string_type"]);
    // An answer to an interrupt is a partial update: nothing is required of it.
    expect(compiled.checkInput({}, "The answer")).toEqual([]);
  });

  it("the structural hash reads an optional field as Pydantic's Optional[...] = None", () => {
    const base = { ir_version: "1.0.0", id: "graph:h", nodes: [{ id: "a", kind: "echo" }] };
    const hashOf = (state_schema: Record<string, string>) => {
      const result = validateDocument({ ...base, state_schema });
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return structuralHash(result.document);
    };
    const required = hashOf({ note: "str" });
    const optional = hashOf({ note: "str?" });
    expect(optional).not.toBe(required);
  });
});
