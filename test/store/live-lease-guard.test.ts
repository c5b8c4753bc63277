/**
 * `keel db restore|reset` while a run holds a live lease: refused (exit 2, naming the run),
 * `--force` included, on both dialects; allowed again once the run has finished. `keel doctor`
 * reports a thread whose latest checkpoint cannot be read.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DurableSaver,
  PostgresSaver,
  RunStore,
  SqliteSaver,
} from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { keelInProcess } from "../support/cli.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase, migratedSqliteFile } from "../support/templates.js";

function saverOn(store: Store): DurableSaver {
  return store.dialect === "sqlite" ? SqliteSaver.fromStore(store) : PostgresSaver.fromStore(store);
}

/** A one-node graph whose node waits until `release` is called: a run that stays live. */
function blockingGraph(saver: DurableSaver) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const State = Annotation.Root({ n: Annotation<number>() });
  const graph = new StateGraph(State)
    .addNode("wait", async (s: { n: number }) => {
      await gate;
      return { n: s.n + 1 };
    })
    .addEdge(START, "wait")
    .addEdge("wait", END)
    .compile({ checkpointer: saver });
  return { graph, release: () => release() };
}

interface Dialect {
  name: string;
  available(): Promise<boolean>;
  open(dir: string): Promise<{ db: string; drop(): Promise<void> }>;
}

const DIALECTS: Dialect[] = [
  {
    name: "SQLite",
    available: async () => true,
    open: async (dir) => {
      const db = join(dir, "keel.db");
      await migratedSqliteFile(db);
      return { db, drop: async () => {} };
    },
  },
  {
    name: "Postgres",
    available: postgresAvailable,
    open: async () => {
      const database = await createMigratedDatabase("live_lease_guard");
      return { db: database.url, drop: () => database.drop() };
    },
  },
];

for (const dialect of DIALECTS) {
  describe(`db restore|reset during a live run: ${dialect.name}`, async () => {
    const available = await dialect.available();
    const it_ = available ? it : it.skip;
    let dir: string;
    let db: string;
    let drop: () => Promise<void>;
    let store: Store;
    beforeAll(async () => {
      if (!available) return;
      dir = mkdtempSync(join(tmpdir(), "keel-lease-guard-"));
      ({ db, drop } = await dialect.open(dir));
      store = await openStore({ db, backupBeforeMigrate: false });
    });
    afterAll(async () => {
      if (!available) return;
      await store.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it_("refuses while a run holds its lease, even with --force, and names the run", async () => {
      const backup = join(dir, "backup.db");
      const made = await keelInProcess(["db", "backup", "--out", backup, "--db", db, "--json"], {
        cwd: dir,
      });
      expect(made.exitCode, made.stderr).toBe(0);

      const saver = saverOn(store);
      const runs = new RunStore(saver);
      const run = await runs.create({ graphId: "blocking" });
      const { graph, release } = blockingGraph(saver);
      const executing = runs.execute(run.id, (config) => graph.invoke({ n: 0 }, config));
      // The lease is taken before the node runs; wait until the run is recorded running.
      for (let i = 0; i < 200 && (await runs.get(run.id)).status !== "running"; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await runs.get(run.id)).status).toBe("running");

      const verbs = [
        ["db", "restore", backup, "--force"],
        ["db", "reset", "--force"],
        ...(dialect.name === "SQLite" ? [["db", "reset", "--hard", "--force"]] : []),
      ];
      for (const verb of verbs) {
        const refused = await keelInProcess([...verb, "--db", db, "--json"], { cwd: dir });
        expect(refused.exitCode, `${verb.join(" ")}: ${refused.stdout}`).toBe(2);
        const error = refused.json.error as { code: string; message: string; details: unknown };
        expect(error.code).toBe("STORE_IN_USE");
        expect(error.message).toContain(run.id);
        expect(error.details).toMatchObject({
          runs: [expect.objectContaining({ runId: run.id, threadId: run.threadId })],
        });
        const human = await keelInProcess([...verb, "--db", db], { cwd: dir });
        expect(human.exitCode).toBe(2);
        expect(human.stderr).toContain(run.id);
      }
      // Nothing was replaced or emptied: the run finishes on its own database.
      release();
      const { run: finished } = await executing;
      expect(finished.status).toBe("succeeded");
      expect(
        (await saver.getTuple({ configurable: { thread_id: run.threadId } }))?.checkpoint
          .channel_values,
      ).toEqual({ n: 1 });

      // With the lease released, the same verbs work.
      const reset = await keelInProcess(["db", "reset", "--force", "--db", db, "--json"], {
        cwd: dir,
      });
      expect(reset.exitCode, reset.stdout).toBe(0);
    });

    it_("keel doctor reports a thread whose latest checkpoint cannot be read", async () => {
      const saver = saverOn(store);
      const runs = new RunStore(saver);
      const good = await runs.create({ graphId: "good" });
      const bad = await runs.create({ graphId: "bad" });
      for (const run of [good, bad]) {
        const { graph, release } = blockingGraph(saver);
        release();
        await runs.execute(run.id, (config) => graph.invoke({ n: 0 }, config));
      }
      const clean = await keelInProcess(["doctor", "--db", db, "--json"], { cwd: dir });
      const threadsOk = (clean.json.checks as { id: string; status: string }[]).find(
        (c) => c.id === "threads",
      );
      expect(threadsOk?.status, clean.stdout).toBe("ok");

      await saver.sql.run(
        "UPDATE state_checkpoints SET channel_seqs_json = replace(channel_seqs_json, '\"n\"', '\"m\"') WHERE thread_id = ?",
        [bad.threadId],
      );
      const doctor = await keelInProcess(["doctor", "--db", db, "--json"], { cwd: dir });
      expect(doctor.exitCode, doctor.stdout).toBe(2);
      const threads = (
        doctor.json.checks as { id: string; status: string; message: string; remedy: string }[]
      ).find((c) => c.id === "threads");
      expect(threads?.status).toBe("error");
      expect(threads?.message).toContain(bad.threadId);
      expect(threads?.message).not.toContain(good.threadId);
      expect(threads?.message).toContain("CHECKPOINT_CORRUPT");
      expect(threads?.remedy).toContain("keel db restore");
    });
  });
}
