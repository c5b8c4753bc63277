/**
 * Deep nesting is refused at validation with a `too_deep` problem (or RULES_PARSE for a .clp),
 * never as a stack overflow (`INTERNAL`) mid-run, and a refused input leaves no run record.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/core/index.js";
import { MAX_FORM_DEPTH, readForms } from "../../src/rules/index.js";
import { validateContract } from "../../src/runtime/index.js";
import { keelInProcess } from "../support/cli.js";

const DEPTH = 5000;
const deepArray = `${"[".repeat(DEPTH)}1${"]".repeat(DEPTH)}`;

function workspace(): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), "keel-depth-"));
  return { dir, db: join(dir, "keel.db") };
}

/** A document whose state has a free-form `dict` field, so only depth can refuse deep input. */
function documentIn(dir: string): string {
  const doc = {
    ir_version: "1.0.0",
    id: "graph:deep",
    state_schema: { data: "dict", note: "str?" },
    nodes: [{ id: "start", kind: "echo" }],
  };
  const file = join(dir, "deep.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

interface Refusal {
  code: string;
  details: { problems: { code: string; path: string; message: string }[] };
}

describe("depth limits at validation", () => {
  it("a run's input nested 5,000 levels deep is refused (too_deep, exit 1) with no run record", async () => {
    const { dir, db } = workspace();
    const doc = documentIn(dir);
    for (const input of [`{"data":{"x":${deepArray}}}`, `{"data":{},"extra":${deepArray}}`]) {
      const result = await keelInProcess(["run", doc, "--input", input, "--db", db, "--json"], {
        cwd: dir,
      });
      expect(result.exitCode, result.stdout).toBe(1);
      const error = result.json.error as Refusal;
      expect(error.code).toBe("IR_INVALID");
      expect(error.details.problems).toHaveLength(1);
      expect(error.details.problems[0]).toMatchObject({
        code: "too_deep",
        message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`),
      });
      expect(error.details.problems[0]?.path).toMatch(/^\/(data\/x|extra)(\/0)+$/);
    }
    const runs = await keelInProcess(["runs", "list", "--db", db, "--json"], { cwd: dir });
    expect(runs.json.threads).toEqual([]);
    // Within the limit, the same document runs.
    const fine = await keelInProcess(
      ["run", doc, "--input", '{"data":{"x":[[1]]}}', "--db", db, "--json"],
      { cwd: dir },
    );
    expect(fine.exitCode, fine.stdout).toBe(0);
  });

  it("an IR document nested 5,000 levels deep fails `ir validate` with a too_deep problem", async () => {
    const { dir } = workspace();
    const file = join(dir, "deep-doc.json");
    writeFileSync(
      file,
      `{"ir_version":"1.0.0","id":"graph:d","nodes":[{"id":"a","kind":"echo","params":{"p":${deepArray}}}]}`,
    );
    const result = await keelInProcess(["ir", "validate", file, "--json"], { cwd: dir });
    expect(result.exitCode, result.stdout).toBe(1);
    expect(JSON.stringify(result.json)).toContain("too_deep");
    expect(JSON.stringify(result.json)).not.toContain("INTERNAL");
  });

  it("an ingested payload nested 5,000 levels deep is rejected with too_deep", async () => {
    const { dir, db } = workspace();
    const result = await keelInProcess(
      ["ingest", "--text", "hi", "--structured", `{"x":${deepArray}}`, "--db", db, "--json"],
      { cwd: dir },
    );
    expect(result.exitCode, result.stdout).toBe(1);
    expect(result.json.status).toBe("rejected");
    const problems = result.json.problems as { code: string }[];
    expect(problems.map((p) => p.code)).toEqual(["too_deep"]);
    // The contract validator itself, for any seed-003 payload.
    const direct = validateContract("ToolCall", { x: JSON.parse(deepArray) });
    expect(direct.ok).toBe(false);
    expect(direct.problems[0]?.code).toBe("too_deep");
  });

  it("a .clp with 100k nested parentheses is RULES_PARSE naming the limit, not a stack overflow", async () => {
    const { dir } = workspace();
    const source = `(defrule r => ${"(".repeat(100_000)}${")".repeat(100_000)})`;
    expect(() => readForms(source)).toThrow(
      expect.objectContaining({
        code: "RULES_PARSE",
        message: expect.stringContaining(`${MAX_FORM_DEPTH} levels`),
      }),
    );
    const file = join(dir, "deep.clp");
    writeFileSync(file, source);
    const run = await keelInProcess(["rules", "run", file, "--json"], { cwd: dir, input: "" });
    expect(run.exitCode, run.stdout).toBe(2);
    expect((run.json.error as { code: string }).code).toBe("RULES_PARSE");

    // As a governance pack mounted by a document: a validation problem, no run.
    const packs = join(dir, "packs");
    mkdirSync(packs);
    writeFileSync(join(packs, "pack.deep.clp"), source);
    const doc = join(dir, "doc.json");
    writeFileSync(
      doc,
      JSON.stringify({
        ir_version: "1.0.0",
        id: "graph:packed",
        nodes: [{ id: "a", kind: "halt" }],
        governance: [{ id: "pack.deep", version: "1.0.0" }],
      }),
    );
    const db = join(dir, "keel.db");
    const ran = await keelInProcess(
      ["run", doc, "--packs", packs, "--input", "{}", "--db", db, "--json"],
      { cwd: dir },
    );
    expect(ran.exitCode, ran.stdout).not.toBe(0);
    expect(ran.stdout).toContain(`${MAX_FORM_DEPTH} levels`);
    expect(ran.stdout).not.toContain("INTERNAL");
    const runs = await keelInProcess(["runs", "list", "--db", db, "--json"], { cwd: dir });
    expect(runs.json.threads).toEqual([]);
  });
});
