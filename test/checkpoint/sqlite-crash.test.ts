import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import {
  buildWorker,
  type CrashBackend,
  crashTrials,
  KILL_KINDS,
  referenceRun,
  summarise,
} from "./crash/crash-harness.js";
import { sqliteTestStore, type TestStore } from "./support/databases.js";

const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 50);
const FIRST_SEED = Number(process.env.KEEL_CRASH_SEED ?? 1);

describe("crash test: SQLite", () => {
  let test: TestStore;
  let effects: Database.Database;
  let backend: CrashBackend;
  let worker: string;

  beforeAll(async () => {
    worker = await buildWorker();
    test = await sqliteTestStore();
    const effectsPath = join(test.db, "..", "effects.db");
    effects = new Database(effectsPath);
    effects.pragma("journal_mode = WAL");
    effects.exec(
      "CREATE TABLE crash_effects (thread_id TEXT NOT NULL, task_key TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (thread_id, task_key))",
    );
    const read = effects.prepare("SELECT task_key, count FROM crash_effects WHERE thread_id = ?");
    backend = {
      dialect: "sqlite",
      db: test.db,
      effects: effectsPath,
      saver: SqliteSaver.fromStore(test.store),
      readEffects: async (threadId) =>
        new Map(
          (read.all(threadId) as Array<{ task_key: string; count: number }>).map((row) => [
            row.task_key,
            row.count,
          ]),
        ),
    };
  });

  afterAll(async () => {
    effects?.close();
    await test?.cleanup();
  });

  it(`${TRIALS} seeded SIGKILL trials end in the uninterrupted state, no durable step lost, each completed step run once`, async () => {
    const reference = await referenceRun(worker, backend);
    const reports = await crashTrials(
      worker,
      backend,
      { trials: TRIALS, firstSeed: FIRST_SEED, concurrency: 2 },
      reference,
    );
    const summary = summarise(reports, reference);
    expect(summary.failures).toEqual([]);
    expect(summary.wrongResults).toEqual([]);
    // The kills must have landed inside runs, or the test proves nothing: at least one per
    // trial on average, and (with the full 50 trials) on every kind of kill point, mid-commit
    // included.
    expect(summary.landed).toBeGreaterThanOrEqual(TRIALS);
    if (TRIALS >= 50)
      for (const kind of KILL_KINDS) expect(summary.kinds[kind] ?? 0, kind).toBeGreaterThan(0);
    // Some kills came after steps were durable (each was checked present after the kill), and
    // after tasks had finished; some inside the parallel or Send step after one of its tasks
    // finished: that task's writes were durable before its step's checkpoint, and it did not
    // run again.
    expect(summary.withDurableCheckpoints).toBeGreaterThan(TRIALS / 2);
    expect(summary.withDurableTasks).toBeGreaterThan(TRIALS / 4);
    if (TRIALS >= 20) expect(summary.earlyDurable).toBeGreaterThan(0);
  }, 300_000); // 50 real processes: ~45 s alone, much more beside another test file on 2 cores
});
