/**
 * Leases between real processes: a thread executed by one process refuses a second process (run
 * store or raw graph) with THREAD_LEASED naming the holder, and the lease of a process that died
 * is taken over at once by the next one on this host. Run once per dialect.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildScript, lastJson, startScript } from "./support/child-script.js";
import type { TestStore } from "./support/databases.js";

interface Outcome {
  status?: string;
  result?: { log: string[] };
  code?: string;
  message?: string;
}

export function runLeaseProcessSuite(options: {
  name: string;
  available?: () => Promise<boolean>;
  open(): Promise<TestStore>;
}): void {
  describe(`leases between processes: ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    let test: TestStore;
    let worker: { path: string };
    beforeAll(async () => {
      if (!available) return;
      worker = await buildScript("lease/lease-worker.ts");
      test = await options.open();
      const db = test.store.native;
      const ddl =
        "CREATE TABLE lease_effects (thread_id TEXT NOT NULL, node TEXT NOT NULL, pid INTEGER NOT NULL)";
      if (db.dialect === "sqlite") db.database.exec(ddl);
      else await db.pool.query(ddl);
    });
    afterAll(async () => {
      if (available) await test.cleanup();
    });
    const it_ = available ? it : it.skip;

    const start = (threadId: string, mode: string) =>
      startScript(worker.path, [test.store.dialect, test.db, threadId, mode]);

    async function effects(threadId: string): Promise<Array<{ node: string; pid: number }>> {
      const db = test.store.native;
      const sql = "SELECT node, pid FROM lease_effects WHERE thread_id = ? ORDER BY node";
      const rows =
        db.dialect === "sqlite"
          ? db.database.prepare(sql).all(threadId)
          : (await db.pool.query(sql.replace("?", "$1"), [threadId])).rows;
      return (rows as Array<{ node: string; pid: number | string }>).map((row) => ({
        node: row.node,
        pid: Number(row.pid),
      }));
    }

    it_(
      "a second process (run store or raw graph) gets THREAD_LEASED naming the holder",
      async () => {
        const holder = start("held", "hold");
        await holder.line((line) => line === "holding");
        const pid = holder.process.pid;
        const second = lastJson<Outcome>(await start("held", "execute").exit);
        expect(second.code).toBe("THREAD_LEASED");
        expect(second.message).toContain(`:${pid}:`);
        // A process that skips the run store is refused by the lease check of its first commit.
        const raw = lastJson<Outcome>(await start("held", "raw").exit);
        expect(raw.code).toBe("THREAD_LEASED");
        holder.send("go");
        const first = lastJson<Outcome>(await holder.exit);
        expect(first.status).toBe("succeeded");
        expect(first.result?.log).toEqual([`first@${pid}`, "second"]);
        // Only the holder ran anything.
        expect(await effects("held")).toEqual([
          { node: "first", pid },
          { node: "second", pid },
        ]);
      },
      60_000,
    );

    it_(
      "the lease of a process killed mid-run is taken over at once by the next process",
      async () => {
        const holder = start("orphaned", "hold");
        await holder.line((line) => line === "holding");
        holder.process.kill("SIGKILL");
        expect((await holder.exit).signal).toBe("SIGKILL");
        const next = start("orphaned", "execute");
        const resumed = lastJson<Outcome>(await next.exit);
        expect(resumed.status).toBe("succeeded");
        expect(resumed.result?.log).toEqual([`first@${next.process.pid}`, "second"]);
        // The killed process's node was running (no writes saved): it ran again, once.
        expect((await effects("orphaned")).map((row) => row.node)).toEqual([
          "first",
          "first",
          "second",
        ]);
      },
      60_000,
    );
  });
}
