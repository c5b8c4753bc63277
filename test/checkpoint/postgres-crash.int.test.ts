/**
 * Crash test, Postgres: as the SQLite one (50 seeded SIGKILL trials, reproducible with
 * KEEL_CRASH_SEED), on the real server. Effects are counted in a table of the same database,
 * written by the node in its own statement before it returns.
 */
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSaver } from "../../src/checkpoint/index.js";
import { postgresAvailable } from "../support/postgres.js";
import {
  buildWorker,
  type CrashBackend,
  crashTrials,
  referenceRun,
} from "./crash/crash-harness.js";
import { postgresTestStore, type TestStore } from "./support/databases.js";

const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 50);
const FIRST_SEED = Number(process.env.KEEL_CRASH_SEED ?? 1);
const available = await postgresAvailable();

describe.skipIf(!available)("crash test: Postgres", () => {
  let test: TestStore;
  let pool: pg.Pool;
  let backend: CrashBackend;
  let worker: string;

  beforeAll(async () => {
    worker = await buildWorker();
    test = await postgresTestStore("crash");
    pool = new pg.Pool({ connectionString: test.db, max: 2 });
    await pool.query(
      "CREATE TABLE crash_effects (thread_id TEXT NOT NULL, task_key TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (thread_id, task_key))",
    );
    backend = {
      dialect: "postgres",
      db: test.db,
      effects: "-",
      saver: PostgresSaver.fromStore(test.store),
      readEffects: async (threadId) => {
        const result = await pool.query<{ task_key: string; count: number }>(
          "SELECT task_key, count FROM crash_effects WHERE thread_id = $1",
          [threadId],
        );
        return new Map(result.rows.map((row) => [row.task_key, row.count]));
      },
    };
  });

  afterAll(async () => {
    await pool?.end();
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
    const landed = reports.reduce((sum, report) => sum + report.effectiveKills, 0);
    expect(landed).toBeGreaterThanOrEqual(TRIALS * 0.6);
    expect(reports.filter((report) => report.durableAtKill.length > 0).length).toBeGreaterThan(
      TRIALS / 4,
    );
    // And some kills must have landed inside the parallel step after one of its tasks finished:
    // that task's writes were durable before its step's checkpoint, and it did not run again.
    const earlyDurable = reports.reduce((n, report) => n + report.killsWithFinishedTasksInStep, 0);
    if (TRIALS >= 20) expect(earlyDurable).toBeGreaterThan(0);
  }, 180_000);
});
