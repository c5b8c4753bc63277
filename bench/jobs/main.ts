/**
 * bench/jobs: no-op jobs through the queue, claim → run (nothing) → record (report validated,
 * execution row written with the transition).
 *  - Postgres, 8 concurrent loops in one process, at the server's default commit settings (the
 *    same for both sides): Keel's jobs/s against graphile-worker's plain throughput (concurrency
 *    8, its defaults) — target 1.5x — with graphile-worker's batched figure (local queue of 500,
 *    batched completions) printed beside it. graphile-worker runs in its own database on the same
 *    server, in the same run.
 *  - SQLite, one process, one loop: Keel's jobs/s and the floor (the same row writes as bare
 *    prepared statements, two commits per job).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJobsContext } from "../../src/jobs/index.js";
import { openStore } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import { median, printTable } from "../lib/report.js";
import { sqliteFloor } from "./floor.js";
import { drainWithGraphile, prepareGraphile } from "./graphile.js";
import { drainWithKeel, installNoopPlugin, queueNoopJobs } from "./keel-loops.js";

const JOBS = Number(process.env.KEEL_BENCH_JOBS ?? 3000);
const ROUNDS = Number(process.env.KEEL_BENCH_ROUNDS ?? 3);
const LOOPS = 8;

async function postgres(): Promise<void> {
  if (!(await postgresAvailable())) {
    console.log("Postgres unreachable: the Postgres rows are skipped.");
    return;
  }
  const keelDb = await createTestDatabase("bench_jobs_keel", { synchronousCommit: "on" });
  const peerDb = await createTestDatabase("bench_jobs_graphile", { synchronousCommit: "on" });
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-jobs-"));
  const store = await openStore({
    location: { dialect: "postgres", url: keelDb.url, keelDir: join(dir, ".keel") },
    poolSize: LOOPS + 2,
  });
  try {
    const ctx = await openJobsContext(store);
    await prepareGraphile(peerDb.url);
    const keel: number[] = [];
    const plain: number[] = [];
    const batched: number[] = [];
    // Warm-up round for each side, not counted.
    await queueNoopJobs(ctx, 300, 0);
    await drainWithKeel(ctx, LOOPS, 300);
    await drainWithGraphile(peerDb.url, 300, LOOPS, false);
    for (let round = 1; round <= ROUNDS; round++) {
      await queueNoopJobs(ctx, JOBS, round);
      keel.push(await drainWithKeel(ctx, LOOPS, JOBS));
      plain.push(await drainWithGraphile(peerDb.url, JOBS, LOOPS, false));
      batched.push(await drainWithGraphile(peerDb.url, JOBS, LOOPS, true));
    }
    printTable(`Postgres: ${JOBS} no-op jobs, ${LOOPS} loops, median of ${ROUNDS} rounds`, [
      {
        name: "claim → run → record vs graphile-worker (plain)",
        unit: "jobs/s",
        keel: median(keel),
        peer: median(plain),
        peerName: "graphile-worker",
        target: 1.5,
        higherIsBetter: true,
      },
      {
        name: "same vs graphile-worker (batched local queue)",
        unit: "jobs/s",
        keel: median(keel),
        peer: median(batched),
        peerName: "graphile-worker batched",
        higherIsBetter: true,
      },
    ]);
  } finally {
    await store.close();
    await keelDb.drop();
    await peerDb.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-jobs-"));
  installNoopPlugin(join(dir, ".keel"));
  const store = await openStore({ db: join(dir, ".keel", "keel.db"), backupBeforeMigrate: false });
  try {
    const ctx = await openJobsContext(store);
    const keel: number[] = [];
    const floor: number[] = [];
    if (store.native.dialect !== "sqlite") throw new Error("expected SQLite");
    const database = store.native.database;
    for (let round = 1; round <= ROUNDS; round++) {
      await queueNoopJobs(ctx, JOBS, round);
      keel.push(await drainWithKeel(ctx, 1, JOBS));
      await queueNoopJobs(ctx, JOBS, round + 1000);
      const ids = (
        await store.kysely
          .selectFrom("state_jobs")
          .select("id")
          .where("status", "=", "queued")
          .orderBy("id")
          .execute()
      ).map((r) => r.id);
      floor.push(sqliteFloor(database, ids));
    }
    printTable(`SQLite: ${JOBS} no-op jobs, one process, one loop, median of ${ROUNDS} rounds`, [
      {
        name: "claim → run → record vs bare statements (floor)",
        unit: "jobs/s",
        keel: median(keel),
        peer: median(floor),
        peerName: "floor",
        higherIsBetter: true,
      },
    ]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await postgres();
await sqlite();
