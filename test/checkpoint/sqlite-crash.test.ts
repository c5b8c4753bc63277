/**
 * Crash test, SQLite: the crash graph runs in a child process killed with SIGKILL at seeded random
 * instants (50 trials, reproducible: set KEEL_CRASH_SEED to move the window), then resumes in a
 * fresh process. Every trial must end in the reference state, run each node at least once, never
 * run again a task (keyed by its task id) whose writes were durable at a kill, and leave every checkpoint readable.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import {
  buildWorker,
  type CrashBackend,
  crashTrials,
  referenceRun,
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
    if (worker) rmSync(worker, { force: true });
  });

  it(`${TRIALS} seeded SIGKILL trials end in the uninterrupted state, each completed step run once`, async () => {
    const reference = await referenceRun(worker, backend);
    const reports = await crashTrials(
      worker,
      backend,
      { trials: TRIALS, firstSeed: FIRST_SEED, concurrency: 2 },
      reference,
    );
    const failures = reports.filter(
      (report) => report.problems.length > 0 || report.finalStatus !== "succeeded",
    );
    expect(
      failures.map((f) => ({ seed: f.seed, status: f.finalStatus, problems: f.problems })),
    ).toEqual([]);
    for (const report of reports) expect(report.finalResult).toEqual(reference.result);
    // The kills must have landed inside runs, or the test proves nothing.
    const landed = reports.reduce((sum, report) => sum + report.effectiveKills, 0);
    expect(landed).toBeGreaterThanOrEqual(TRIALS * 0.6);
    // And some of them must have interrupted a step with work already durable.
    expect(reports.filter((report) => report.durableAtKill.length > 0).length).toBeGreaterThan(
      TRIALS / 4,
    );
    // And some kills must have landed inside the parallel step after one of its tasks finished:
    // that task's writes were durable before its step's checkpoint, and it did not run again.
    const earlyDurable = reports.reduce((n, report) => n + report.killsWithFinishedTasksInStep, 0);
    if (TRIALS >= 20) expect(earlyDurable).toBeGreaterThan(0);
  }, 180_000);
});
