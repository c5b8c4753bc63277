import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { graphHash, loads, stateModelSchema, structuralHash } from "../../src/ir/index.js";
import { keelChild, keelInProcess } from "../support/cli.js";

const root = new URL("../../", import.meta.url).pathname;
const triage = join(root, "examples/triage.json");
const dir = mkdtempSync(join(tmpdir(), "keel-ir-cli-"));
const THEN = "then";

/** Runs the real CLI from the repository root, in this process (test/support/cli.ts). */
async function keel(
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const result = await keelInProcess(args, { cwd: root });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("keel ir", () => {
  it("validate: exit 0 for a valid document", async () => {
    const run = await keel("ir", "validate", triage);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/valid .*graph:triage, 3 node\(s\)/);
  });

  it("validate: exit 1 with every problem; --json prints them", async () => {
    const bad = file(
      "bad.json",
      JSON.stringify({
        ir_version: "1.0.0",
        id: "g",
        nodes: [{ id: "A", kind: "echo" }, { id: "b" }],
      }),
    );
    const human = await keel("ir", "validate", bad);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("/nodes/1/kind");
    const json = await keel("ir", "validate", bad, "--json");
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out.ok).toBe(false);
    expect(out.problems).toEqual([
      expect.objectContaining({ code: "missing", path: "/nodes/1/kind", hint: expect.any(String) }),
    ]);
    const broken = await keel("ir", "validate", file("broken.json", "{"), "--json");
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).problems[0]).toMatchObject({
      code: "json_invalid",
      path: "/",
    });
  });

  it("validate: --node-kinds reports kinds outside the list", async () => {
    const run = await keel("ir", "validate", triage, "--node-kinds", "echo,halt", "--json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).problems).toEqual([
      expect.objectContaining({ code: "unknown_node_kind", path: "/nodes/1/kind" }),
    ]);
  });

  it("validate: exit 5 for a missing file", async () => {
    const run = await keel("ir", "validate", join(dir, "nope.json"), "--json");
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("hash: prints the graph hash of a valid document, refuses an invalid one", async () => {
    const { readFileSync } = await import("node:fs");
    const triageDoc = loads(readFileSync(triage, "utf8"));
    const expected = graphHash(triageDoc);
    const run = await keel("ir", "hash", triage);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(expected);
    expect(JSON.parse((await keel("ir", "hash", triage, "--json")).stdout)).toEqual({
      ok: true,
      file: triage,
      id: "graph:triage",
      hash: expected,
      structural_hash: structuralHash(triageDoc),
    });
    // A document with a migrate entry: the hash printed is the one its runs record (the
    // graph hash leaves migrate out), so it can be a later document's to_hash.
    const migrating = file(
      "migrating.json",
      JSON.stringify({
        ir_version: "1.0.0",
        id: "g",
        nodes: [{ id: "a", kind: "echo" }],
        migrate: [{ from_hash: "f".repeat(64), to_hash: "e".repeat(64) }],
      }),
    );
    const printed = (await keel("ir", "hash", migrating)).stdout.trim();
    const ran = JSON.parse(
      (await keel("run", migrating, "--db", join(dir, "hash.db"), "--json")).stdout,
    );
    expect(ran.graph_hash).toBe(printed);
    const mismatch = file("v2.json", '{"ir_version":"2.0.0","id":"g","nodes":[]}');
    const refused = await keel("ir", "hash", mismatch, "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).problems[0].code).toBe("version_mismatch");
  });

  it("hash: a state_class document gets its structural hash from the class's schema, given as a file", async () => {
    const fields = {
      ir_version: "1.1.0",
      id: "g",
      nodes: [{ id: "a", kind: "echo" }],
      state_schema: { count: "int", note: "str?" },
    };
    const declared = loads(JSON.stringify(fields));
    const classed = file(
      "classed.json",
      JSON.stringify({ ...fields, state_schema: {}, state_class: "app.state:Counter" }),
    );
    // Without the class's schema there is no structural hash (a Python class Keel cannot read).
    expect(JSON.parse((await keel("ir", "hash", classed, "--json")).stdout).structural_hash).toBe(
      null,
    );
    // The class declares what state_schema did: the same schema, so the same structural hash.
    const schema = file("counter.schema.json", JSON.stringify(stateModelSchema(declared)));
    const hashed = await keel("ir", "hash", classed, "--state-class-schema", schema, "--json");
    expect(JSON.parse(hashed.stdout).structural_hash).toBe(structuralHash(declared));
    const notObject = file("list.json", "[1]");
    const refused = await keel("ir", "hash", classed, "--state-class-schema", notObject);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("holds no JSON object");
    const missing = await keel(
      "ir",
      "hash",
      classed,
      "--state-class-schema",
      join(dir, "nope.json"),
    );
    expect(missing.stderr).toContain("No file at");
  });

  it("schema: prints a model's JSON Schema, lists models, refuses unknown ones", async () => {
    const doc = await keel("ir", "schema");
    expect(doc.code).toBe(0);
    expect(JSON.parse(doc.stdout).title).toBe("IRDocument");
    expect(JSON.parse((await keel("ir", "schema", "ToolSpec")).stdout).title).toBe("ToolSpec");
    expect((await keel("ir", "schema", "--list")).stdout).toContain("InterruptAction");
    const unknown = await keel("ir", "schema", "Nope");
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain("No IR model named");
    const seed = JSON.parse(
      (await keel("ir", "schema", "ToolSpec", "--ir-version", "1.0.0")).stdout,
    );
    expect(seed.$defs.ReplayPolicy.enum).toEqual(["must_stub", "rerun", "skip"]);
    expect(seed.$comment).toBe("Keel IR 1.0.0");
    const malformed = await keel("ir", "schema", "--ir-version", "one");
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toContain("is not a MAJOR.MINOR.PATCH version");
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

  it("runs a document durably, pauses on its interrupt and resumes with --respond", async () => {
    const paused = await keel(
      "run",
      refund,
      "--db",
      db,
      "--input",
      input,
      "--thread",
      "t1",
      "--json",
    );
    expect(paused.code).toBe(0);
    const first = JSON.parse(paused.stdout);
    expect(first).toMatchObject({ ok: true, thread_id: "t1", status: "interrupted" });
    expect(first.interrupt).toMatchObject({
      prompt: "Approve a refund above 50?",
      requested_capability: "refunds:approve",
    });
    const done = JSON.parse(
      (
        await keel(
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
        )
      ).stdout,
    );
    expect(done.status).toBe("completed");
    expect(done.state.approved).toBe(true);
    expect(done.transitions.map((t: { from: string; to: string }) => `${t.from}>${t.to}`)).toEqual([
      "receive>__ir_wait__",
      "__ir_wait__>manual_review",
      "manual_review>auto_refund",
      "auto_refund>notify",
      "notify>done",
      "done>__end__",
    ]);
  });

  it("refuses a document whose rule does not parse before any run exists", async () => {
    const fresh = join(dir, "bad-rule.db");
    const bad = file(
      "bad-rule.json",
      JSON.stringify({
        ir_version: "1.0.0",
        id: "g",
        nodes: [{ id: "a", kind: "echo" }],
        rules: [{ id: "r", when: "(a ?x&:(>== ?x 1))" }],
      }),
    );
    const run = await keel("run", bad, "--db", fresh, "--json");
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.error.code).toBe("IR_INVALID");
    expect(out.error.details.problems).toEqual([
      expect.objectContaining({ code: "rule_invalid", path: "/rules/0/when" }),
    ]);
    const listed = JSON.parse((await keel("runs", "list", "--db", fresh, "--json")).stdout);
    expect(listed.threads).toEqual([]);
  });

  // One child process (node + tsx: tens of seconds on a loaded box), hence the timeout.
  it("keeps asserted facts in the checkpoint: a rule matches them after respond in a new process", {
    timeout: 120_000,
  }, async () => {
    const facts = join(dir, "facts.db");
    const doc = file(
      "facts.json",
      JSON.stringify({
        ir_version: "1.0.0",
        id: "graph:facts",
        nodes: [
          { id: "a", kind: "echo" },
          { id: "b", kind: "echo" },
          { id: "c", kind: "echo" },
          { id: "d", kind: "halt" },
        ],
        rules: [
          {
            id: "mark",
            when: "(node-id a)",
            [THEN]: [
              { kind: "assert", fact: "flagged", slots: '{"by":"a","level":2}' },
              { kind: "interrupt", prompt: "Go on?" },
            ],
          },
          {
            id: "use",
            when: '(node-id b) (flagged "a" 2)',
            [THEN]: [{ kind: "goto", target: "d" }],
          },
        ],
        state_schema: { ok: "bool?" },
      }),
    );
    const paused = JSON.parse((await keel("run", doc, "--db", facts, "--json")).stdout);
    expect(paused.status).toBe("interrupted");
    // A new process: only the checkpoint carries the (flagged "a" 2) fact to the rule.
    const done = JSON.parse(
      keelChild(
        ["runs", "respond", paused.run_id, "--value", '{"ok":true}', "--db", facts, "--json"],
        { cwd: root },
      ).stdout,
    );
    expect(
      done.transitions.map(
        (t: { from: string; to: string; rule: string | null }) => `${t.from}>${t.to}@${t.rule}`,
      ),
    ).toEqual(["a>__ir_wait__@mark", "__ir_wait__>b@mark", "b>d@use", "d>__end__@null"]);
  });

  it("refuses a bad input with every problem, exit 1, before any run exists", async () => {
    const fresh = join(dir, "bad-input.db");
    const run = await keel(
      "run",
      refund,
      "--db",
      fresh,
      "--input",
      '{"amount":"lots","bogus":1}',
      "--json",
    );
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout);
    expect(out.error.code).toBe("IR_INVALID");
    expect(out.error.details.problems).toEqual([
      expect.objectContaining({ code: "missing", path: "/customer_id" }),
      expect.objectContaining({ code: "float_type", path: "/amount", expected: "float" }),
      expect.objectContaining({ code: "extra_forbidden", path: "/bogus" }),
    ]);
    // Nothing about internal channels, nothing suggesting a resume that cannot succeed.
    expect(run.stdout).not.toMatch(/__ir|__start__|runs resume/);
    const notObject = JSON.parse(
      (await keel("run", refund, "--db", fresh, "--input", "[1]", "--json")).stdout,
    );
    expect(notObject.error.details.problems).toEqual([
      expect.objectContaining({ code: "dict_type", path: "/" }),
    ]);
    const listed = JSON.parse((await keel("runs", "list", "--db", fresh, "--json")).stdout);
    expect(listed.threads).toEqual([]);
  });
});
