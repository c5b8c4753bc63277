/**
 * Ledger leases between real processes: an `attempted` call belongs to the execution that wrote
 * it. Another process's recovery (or a second call with the same key) leaves a live owner's call
 * in flight alone, also past the lease's first term while the owner renews it; recovery is scoped
 * to the run it recovers; a call whose owner was killed becomes `unknown` at once.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../../src/core/index.js";
import { runtimeDb } from "../../../src/runtime/db/tables.js";
import type { Store } from "../../../src/store/index.js";
import {
  buildScript,
  lastJson,
  repoRoot,
  startScript,
} from "../../checkpoint/support/child-script.js";

interface Recovered {
  marked: { id: string; task: string; status: string }[];
  again: { status?: string; code?: string };
}

export function callLeaseProcessCases(
  dialect: "sqlite" | "postgres",
  open: () => Promise<{ db: string; store: Store; cleanup(): Promise<void> }>,
): void {
  describe(`ledger leases between processes: ${dialect}`, { timeout: 60_000 }, () => {
    let worker: { path: string };
    let db: string;
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      worker = await buildScript("../runtime/lease/call-lease-worker.ts");
      ({ db, store, cleanup } = await open());
      process.env.KEEL_MIGRATIONS_DIR = join(repoRoot, "src", "store", "migrations", dialect);
    });
    afterAll(async () => {
      await cleanup?.();
    });

    const start = (mode: "hold" | "recover", task: string, key: string, ttlMs?: number) =>
      startScript(worker.path, [mode, db, task, key, ...(ttlMs ? [String(ttlMs)] : [])]);
    const calls = (task: string) =>
      runtimeDb(store)
        .selectFrom("state_tool_calls")
        .select(["status", "lease_owner"])
        .where("task_id", "=", task)
        .execute();

    it("a live worker's call in flight is never marked unknown by another process, even past its first lease term", async () => {
      const task = newId();
      // A 300 ms lease, renewed every 100 ms by its owner while the tool runs.
      const holder = start("hold", task, "k1", 300);
      const owner = (await holder.line((l) => l.startsWith("in-flight "))).slice(10);
      expect(owner).toContain(`:${holder.process.pid}:`);
      await new Promise((r) => setTimeout(r, 1000));
      const other = lastJson<Recovered>(await start("recover", task, "k1").exit);
      expect(other.marked).toEqual([]);
      // The same key from the other process: refused as in flight, not run, not marked.
      expect(other.again.code).toBe("ILLEGAL_TRANSITION");
      expect(await calls(task)).toEqual([{ status: "attempted", lease_owner: owner }]);
      holder.send("go");
      expect(lastJson<{ status: string }>(await holder.exit).status).toBe("succeeded");
      expect((await calls(task)).map((c) => c.status)).toEqual(["succeeded"]);
    });

    it("recovery of one run marks only that run's calls, and a killed owner's call at once", async () => {
      const [taskX, taskY, taskZ] = [newId(), newId(), newId()];
      const x = start("hold", taskX, "kx");
      const y = start("hold", taskY, "ky");
      const z = start("hold", taskZ, "kz");
      await Promise.all([x, y, z].map((c) => c.line((l) => l.startsWith("in-flight "))));
      // X and Y die mid-call (default 30 s lease: only their death lapses it); Z lives on.
      x.process.kill("SIGKILL");
      y.process.kill("SIGKILL");
      await Promise.all([x.exit, y.exit]);
      const recoveredX = lastJson<Recovered>(await start("recover", taskX, "kx").exit);
      expect(recoveredX.marked.map((c) => [c.task, c.status])).toEqual([[taskX, "unknown"]]);
      // X's call is in doubt and the tool is not retry-safe: held for an operator.
      expect(recoveredX.again.code).toBe("TOOL_CALL_UNKNOWN");
      expect((await calls(taskX)).map((c) => c.status)).toEqual(["unknown"]);
      // Y (also dead) was not X's recovery's business; Z (alive) nobody's.
      expect((await calls(taskY)).map((c) => c.status)).toEqual(["attempted"]);
      expect((await calls(taskZ)).map((c) => c.status)).toEqual(["attempted"]);
      const recoveredZ = lastJson<Recovered>(await start("recover", taskZ, "kz").exit);
      expect(recoveredZ.marked).toEqual([]);
      expect(recoveredZ.again.code).toBe("ILLEGAL_TRANSITION");
      const recoveredY = lastJson<Recovered>(await start("recover", taskY, "ky").exit);
      expect(recoveredY.marked.map((c) => c.task)).toEqual([taskY]);
      z.send("go");
      expect(lastJson<{ status: string }>(await z.exit).status).toBe("succeeded");
      expect((await calls(taskZ)).map((c) => c.status)).toEqual(["succeeded"]);
    });
  });
}
