/**
 * An IR run's rules are bounded: a governance-pack rule that never settles fails the step with
 * RULES_LIMIT naming it (the bound set with `keel config set rules.*`), the run is left `failed`
 * and `keel runs resume` retries it once the pack is fixed; document rules that undo each other
 * fail after 100 rounds instead of ending the run as if they had settled.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IR_RULE_LIMITS } from "../../src/rules/index.js";
import { KNOWN_PREFERENCES } from "../../src/store/index.js";
import { keelInProcess } from "../support/cli.js";

// A rule's actions are its `then` (a name Biome flags on object literals).
const THEN = "then";

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "keel-rule-limits-"));
  const packs = join(dir, "packs");
  mkdirSync(packs);
  return { dir, packs, db: join(dir, "keel.db") };
}

interface ErrorOut {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

describe("rule bounds in IR runs", () => {
  it("the rules.* preferences default to IR_RULE_LIMITS", () => {
    expect(KNOWN_PREFERENCES["rules.max_firings"].default).toBe(IR_RULE_LIMITS.maxFirings);
    expect(KNOWN_PREFERENCES["rules.max_loop_iterations"].default).toBe(
      IR_RULE_LIMITS.maxLoopIterations,
    );
    expect(KNOWN_PREFERENCES["rules.max_facts"].default).toBe(IR_RULE_LIMITS.maxFacts);
    expect(KNOWN_PREFERENCES["rules.max_run_ms"].default).toBe(IR_RULE_LIMITS.maxRunMs);
  });

  it("a pack rule that never settles fails the run with RULES_LIMIT naming it; resumable once fixed", async () => {
    const { dir, packs, db } = workspace();
    const pack = join(packs, "pack.spin.clp");
    writeFileSync(
      pack,
      "; version: 1.0.0\n(defrule respin ?f <- (spin) => (retract ?f) (assert (spin)))\n(defrule start (amount ?a) (not (started)) => (assert (started)) (assert (spin)))\n",
    );
    const file = join(dir, "doc.json");
    writeFileSync(
      file,
      JSON.stringify({
        ir_version: "1.0.0",
        id: "graph:spin",
        state_schema: { amount: "int" },
        nodes: [
          { id: "a", kind: "echo" },
          { id: "end", kind: "halt" },
        ],
        rules: [{ id: "next", when: "(node-id a)", [THEN]: [{ kind: "goto", target: "end" }] }],
        governance: [{ id: "pack.spin", version: "1.0.0" }],
      }),
    );
    const set = await keelInProcess(["config", "set", "rules.max_firings", "300", "--db", db], {
      cwd: dir,
    });
    expect(set.exitCode, set.stderr).toBe(0);
    const run = await keelInProcess(
      ["run", file, "--packs", packs, "--input", '{"amount":5}', "--db", db, "--json"],
      { cwd: dir },
    );
    expect(run.exitCode, run.stdout).toBe(2);
    const error = run.json.error as ErrorOut;
    expect(error.code).toBe("RULES_LIMIT");
    expect(error.message).toContain("Rule respin");
    expect(error.message).toContain("300");
    expect(error.details).toMatchObject({ rule: "respin", limit: "maxFirings", value: 300 });

    const listed = await keelInProcess(["runs", "list", "--db", db, "--json"], { cwd: dir });
    const latest = (listed.json.threads as { latestRun: { id: string; status: string } | null }[])
      .map((t) => t.latestRun)
      .filter((r) => r !== null);
    expect(latest.map((r) => r?.status)).toEqual(["failed"]);
    const runId = latest[0]?.id as string;

    // The pack fixed (the same rules, settling), the failed run is retried by id.
    writeFileSync(
      pack,
      "; version: 1.0.0\n(defrule respin ?f <- (spin) => (retract ?f))\n(defrule start (amount ?a) (not (started)) => (assert (started)) (assert (spin)))\n",
    );
    const resumed = await keelInProcess(["runs", "resume", runId, "--db", db, "--json"], {
      cwd: dir,
    });
    expect(resumed.exitCode, resumed.stdout).toBe(0);
    expect(resumed.json).toMatchObject({ run_status: "succeeded" });
  });

  it("document rules that undo each other fail after 100 rounds, naming them, not exit 0", async () => {
    const { dir, db } = workspace();
    const file = join(dir, "ping-pong.json");
    writeFileSync(
      file,
      JSON.stringify({
        ir_version: "1.0.0",
        id: "graph:ping-pong",
        state_schema: { n: "int" },
        nodes: [
          { id: "a", kind: "echo" },
          { id: "end", kind: "halt" },
        ],
        rules: [
          {
            id: "ping",
            when: '(ball "left")',
            [THEN]: [
              { kind: "retract", pattern: '(ball "left")' },
              { kind: "assert", fact: "ball", slots: '{"side":"right"}' },
            ],
          },
          {
            id: "pong",
            when: '(ball "right")',
            [THEN]: [
              { kind: "retract", pattern: '(ball "right")' },
              { kind: "assert", fact: "ball", slots: '{"side":"left"}' },
            ],
          },
          {
            id: "serve",
            when: "(node-id a)",
            [THEN]: [{ kind: "assert", fact: "ball", slots: '{"side":"left"}' }],
          },
        ],
      }),
    );
    const run = await keelInProcess(["run", file, "--input", '{"n":1}', "--db", db, "--json"], {
      cwd: dir,
    });
    expect(run.exitCode, run.stdout).toBe(2);
    const error = run.json.error as ErrorOut;
    expect(error.code).toBe("RULES_LIMIT");
    expect(error.message).toContain("100 rounds");
    expect(error.details.rules).toEqual(
      expect.arrayContaining([expect.stringMatching(/^p[io]ng$/)]),
    );
  });
});
