import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DecisionMemory } from "../../src/memory/index.js";
import { verifyAuditLog } from "../../src/runtime/index.js";
import { openStore } from "../../src/store/index.js";
import { lastJson, startScript } from "../checkpoint/support/child-script.js";
import { bundleChild } from "../support/child-bundle.js";

type Outcome = { id?: string; code?: string };

/**
 * Four processes, four writers each, on one SQLite file: SQLite's lock serialises their
 * transactions, and the database's own invariants decide (memory.case.ts races writers that
 * share one connection; here each process has its own).
 */
describe("decision memory on sqlite: writers in separate processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-memory-procs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function race(script: string, db: string, args: string[]): Promise<Outcome[]> {
    const children = Array.from({ length: 4 }, () => startScript(script, [db, ...args]));
    await Promise.all(children.map((c) => c.line((l) => l === "ready")));
    for (const c of children) c.send("go");
    const exits = await Promise.all(children.map((c) => c.exit));
    for (const e of exits) expect(e.exitCode, e.stderr).toBe(0);
    return exits.flatMap((e) => lastJson<Outcome[]>(e));
  }

  it("16 writers on one target: exactly one active record, the others conflict; 16 supersedes: one wins", async () => {
    const script = await bundleChild(join(import.meta.dirname, "support", "writer.ts"), {
      ownImportMetaUrl: true,
    });
    const db = join(dir, "keel.db");
    const store = await openStore({ db, backupBeforeMigrate: false });
    try {
      const recorded = await race(script, db, ["record"]);
      expect(recorded).toHaveLength(16);
      const winners = recorded.filter((o) => o.id);
      expect(winners).toHaveLength(1);
      expect(recorded.filter((o) => o.code === "MEMORY_CONFLICT")).toHaveLength(15);
      const memory = new DecisionMemory(store);
      const old = winners[0]?.id as string;
      expect(
        (await memory.list({ target: "contended", status: "active" })).map((r) => r.id),
      ).toEqual([old]);

      const superseded = await race(script, db, ["supersede", old]);
      const successors = superseded.filter((o) => o.id);
      expect(successors).toHaveLength(1);
      for (const o of superseded.filter((s) => !s.id)) {
        expect(["MEMORY_INVARIANT", "MEMORY_CONFLICT"]).toContain(o.code);
      }
      const active = await memory.list({ target: "contended", status: "active" });
      expect(active.map((r) => r.id)).toEqual([successors[0]?.id]);
      expect((await memory.get(old)).superseded_by).toBe(successors[0]?.id);
      expect((await memory.get(successors[0]?.id as string)).supersedes).toEqual([old]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);
});
