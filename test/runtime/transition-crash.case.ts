import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuditTrace, verifyAuditLog } from "../../src/runtime/index.js";
import { buildScript, repoRoot, startScript } from "../checkpoint/support/child-script.js";
import { keelInProcess } from "../support/cli.js";
import type { RuntimeHarness } from "./support/harness.js";

const DOCUMENT = {
  ir_version: "1.0.0",
  id: "graph:transition-crash",
  nodes: [
    { id: "a", kind: "echo" },
    { id: "b", kind: "echo" },
    { id: "done", kind: "halt" },
  ],
  // Parsed: a literal object with a `then` key reads as a thenable to the linter.
  rules: [JSON.parse('{"id":"go","when":"(node-id a)","then":[{"kind":"goto","target":"b"}]}')],
  state_schema: { n: "int" },
};

/**
 * A document run's transition is audited before its step's checkpoint: a process killed with
 * SIGKILL between the two re-runs the step on recovery, and the trail must still hold each
 * transition (and rule firing) exactly once, in an intact chain.
 */
export function runTransitionCrashCases(harness: RuntimeHarness): void {
  describe(`transition audit across kill -9: ${harness.dialect}`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-transition-crash-"));
    const document = join(dir, "doc.json");
    let worker: { path: string; remove?: () => void };
    beforeAll(async () => {
      writeFileSync(document, JSON.stringify(DOCUMENT));
      worker = await buildScript("../runtime/crash/transition-worker.ts");
    });
    afterAll(async () => {
      worker?.remove?.();
      rmSync(dir, { recursive: true, force: true });
      await harness.cleanup();
    });

    it("a step re-run after a kill between its transition's audit and its checkpoint audits once", async () => {
      const store = await harness.open("transition_crash");
      const db = store.location.dialect === "sqlite" ? store.location.path : store.location.url;
      process.env.KEEL_MIGRATIONS_DIR = join(
        repoRoot,
        "src",
        "store",
        "migrations",
        harness.dialect,
      );
      const child = startScript(worker.path, [db, document]);
      const audited = await child.line((line) => line.startsWith("audited "));
      child.process.kill("SIGKILL");
      expect((await child.exit).signal).toBe("SIGKILL");
      const first = audited.slice("audited ".length);

      const recovered = await keelInProcess(["runs", "recover", "--all", "--db", db, "--json"]);
      expect(recovered.exitCode, recovered.stdout + recovered.stderr).toBe(0);
      const [one] = recovered.json.recovered as {
        runId: string;
        outcome: string;
        run: { status: string };
      }[];
      expect(one?.outcome).toBe("recovered");
      expect(one?.run.status).toBe("succeeded");

      const run = await keelInProcess(["runs", "show", "crash", "--db", db, "--json"]);
      const trace = String((run.json.runs as { traceId: string }[])[0]?.traceId);
      const events = await readAuditTrace(store, trace);
      const transitions = events.filter((e) => e.type === "ir.transition");
      const moves = transitions.map((e) => e.summary.split(":")[0]);
      // Each move once; the one audited before the kill is the very event the worker wrote.
      expect(moves).toEqual([...new Set(moves)]);
      expect(moves).toContain("a -> b by go");
      expect(transitions.map((e) => e.audit_id)).toContain(first);
      const firings = events.filter((e) => e.type === "rule.fired").map((e) => e.summary);
      expect(firings).toEqual([...new Set(firings)]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });
  });
}
