import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { graphHash, loads } from "../../src/ir/index.js";

const root = new URL("../../", import.meta.url).pathname;
const triage = join(root, "examples/triage.json");
const dir = mkdtempSync(join(tmpdir(), "keel-ir-cli-"));

/** Runs the real CLI in a child process, as a user would. */
function keel(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", join(root, "src/cli/run.ts"), ...args],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("keel ir", () => {
  it("validate: exit 0 for a valid document", () => {
    const run = keel("ir", "validate", triage);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/valid .*graph:triage, 3 node\(s\)/);
  });

  it("validate: exit 1 with every problem; --json prints them", () => {
    const bad = file(
      "bad.json",
      JSON.stringify({
        ir_version: "1.0.0",
        id: "g",
        nodes: [{ id: "A", kind: "echo" }, { id: "b" }],
      }),
    );
    const human = keel("ir", "validate", bad);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("/nodes/1/kind");
    const json = keel("ir", "validate", bad, "--json");
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out.ok).toBe(false);
    expect(out.problems).toEqual([
      expect.objectContaining({ code: "missing", path: "/nodes/1/kind", hint: expect.any(String) }),
    ]);
    const broken = keel("ir", "validate", file("broken.json", "{"), "--json");
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).problems[0]).toMatchObject({
      code: "json_invalid",
      path: "/",
    });
  });

  it("validate: --node-kinds reports kinds outside the list", () => {
    const run = keel("ir", "validate", triage, "--node-kinds", "echo,halt", "--json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).problems).toEqual([
      expect.objectContaining({ code: "unknown_node_kind", path: "/nodes/1/kind" }),
    ]);
  });

  it("validate: exit 5 for a missing file", () => {
    const run = keel("ir", "validate", join(dir, "nope.json"), "--json");
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("hash: prints the graph hash of a valid document, refuses an invalid one", async () => {
    const { readFileSync } = await import("node:fs");
    const expected = graphHash(loads(readFileSync(triage, "utf8")));
    const run = keel("ir", "hash", triage);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(expected);
    expect(JSON.parse(keel("ir", "hash", triage, "--json").stdout)).toEqual({
      ok: true,
      file: triage,
      id: "graph:triage",
      hash: expected,
    });
    const mismatch = file("v2.json", '{"ir_version":"2.0.0","id":"g","nodes":[]}');
    const refused = keel("ir", "hash", mismatch, "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).problems[0].code).toBe("version_mismatch");
  });

  it("schema: prints a model's JSON Schema, lists models, refuses unknown ones", () => {
    const doc = keel("ir", "schema");
    expect(doc.code).toBe(0);
    expect(JSON.parse(doc.stdout).title).toBe("IRDocument");
    expect(JSON.parse(keel("ir", "schema", "ToolSpec").stdout).title).toBe("ToolSpec");
    expect(keel("ir", "schema", "--list").stdout).toContain("InterruptAction");
    const unknown = keel("ir", "schema", "Nope");
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain("No IR model named");
  });
});

describe("keel run", () => {
  const refund = join(root, "examples/refund-approval.json");
  const db = join(dir, "runs.db");
  const input = JSON.stringify({
    customer_id: "c1",
    amount: 120.5,
    fraud_score: 0.1,
    mail_failed: 0,
    approved: false,
  });

  it("runs a document durably, pauses on its interrupt and resumes with --respond", () => {
    const paused = keel("run", refund, "--db", db, "--input", input, "--thread", "t1", "--json");
    expect(paused.code).toBe(0);
    const first = JSON.parse(paused.stdout);
    expect(first).toMatchObject({ ok: true, thread_id: "t1", status: "interrupted" });
    expect(first.interrupt).toMatchObject({
      prompt: "Approve a refund above 50?",
      requested_capability: "refunds:approve",
    });
    const done = JSON.parse(
      keel(
        "run",
        refund,
        "--db",
        db,
        "--thread",
        "t1",
        "--respond",
        '{"approved":true}',
        "--capability",
        "refunds:approve",
        "--json",
      ).stdout,
    );
    expect(done.status).toBe("completed");
    expect(done.state.approved).toBe(true);
    expect(done.transitions.map((t: { from: string; to: string }) => `${t.from}>${t.to}`)).toEqual([
      "receive>__ir_wait__",
      "__ir_wait__>manual_review",
      "manual_review>notify",
      "notify>done",
      "done>__end__",
    ]);
  });

  it("reports a wrong input type as a clear run error", () => {
    const run = keel("run", refund, "--db", db, "--input", '{"amount":"lots"}', "--json");
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error.code).toBe("IR_STATE_TYPE");
  });
});
