/**
 * The floor rounds in a process of their own: Keel's chain, the bare commit (floor.ts) and the
 * chain on the no-op saver (noop-saver.ts), alternating round by round, on one database — with
 * LangGraph.js never loaded. In main.ts's process each Keel round follows a LangGraph.js round
 * whose garbage (≈2,000 µs of CPU a step, mostly allocation) V8 collects concurrently, during
 * Keel's round: `process.cpuUsage` counts those threads, and they contend for the two cores, so
 * Keel's figure there includes work of its peer. The floor and the engine-only chain allocate
 * little and were never billed for it; here all three run under the same conditions.
 *
 * `tsx floor-process.ts sqlite <NORMAL|FULL> <dir>` or `tsx floor-process.ts postgres`: prints
 * one JSON line `{ keel, floor, engine }`, each the median `Figures` of the rounds.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresSaver, SqliteSaver } from "../../src/checkpoint/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase } from "../../test/support/postgres.js";
import { type Figures, measure, medianFigures, warmUntilSteady } from "../lib/report.js";
import { postgresFloor, sameSqliteSettings, sqliteFloor } from "./floor.js";
import { CHAIN_LENGTH, type Invokable, keelChain } from "./graphs.js";
import { NoopSaver } from "./noop-saver.js";

const ROUNDS = Number(process.env.KEEL_BENCH_FLOOR_ROUNDS ?? 15);

let threadCounter = 0;

function microsPerStep(graph: Invokable): Promise<Figures> {
  const config = {
    configurable: { thread_id: `floor-process-${++threadCounter}` },
    recursionLimit: 1000,
    durability: "sync",
  };
  return measure(CHAIN_LENGTH, () => graph.invoke({ count: 0, label: "x" }, config));
}

async function rounds(
  keel: Invokable,
  floor: () => Promise<Figures>,
): Promise<{ keel: Figures; floor: Figures; engine: Figures }> {
  const engine = keelChain(new NoopSaver());
  await warmUntilSteady(() => microsPerStep(keel));
  await warmUntilSteady(floor);
  await warmUntilSteady(() => microsPerStep(engine));
  const samples = { keel: [] as Figures[], floor: [] as Figures[], engine: [] as Figures[] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.keel.push(await microsPerStep(keel));
    samples.floor.push(await floor());
    samples.engine.push(await microsPerStep(engine));
  }
  return {
    keel: medianFigures(samples.keel),
    floor: medianFigures(samples.floor),
    engine: medianFigures(samples.engine),
  };
}

const [dialect, synchronous, dir] = process.argv.slice(2);
let store: Store | undefined;
try {
  if (dialect === "sqlite" && (synchronous === "NORMAL" || synchronous === "FULL") && dir) {
    store = await openStore({
      db: join(dir, `floor-process-keel-${synchronous}.db`),
      synchronous,
      backupBeforeMigrate: false,
    });
    const bare = new Database(join(dir, `floor-process-bare-${synchronous}.db`));
    if (store.native.dialect !== "sqlite") throw new Error("expected a SQLite store");
    const checkpointer = sameSqliteSettings(bare, store.native.database);
    const result = await rounds(keelChain(SqliteSaver.fromStore(store)), () =>
      sqliteFloor(bare, CHAIN_LENGTH),
    );
    await checkpointer?.close();
    bare.close();
    console.log(JSON.stringify(result));
  } else if (dialect === "postgres") {
    const keelDb = await createTestDatabase("bench_floor_keel", { synchronousCommit: "on" });
    const bareDb = await createTestDatabase("bench_floor_bare", { synchronousCommit: "on" });
    store = await openStore({ db: keelDb.url });
    const bare = new pg.Pool({ connectionString: bareDb.url, max: 1 });
    const result = await rounds(keelChain(PostgresSaver.fromStore(store)), () =>
      postgresFloor(bare, CHAIN_LENGTH),
    );
    await bare.end();
    await store.close();
    store = undefined;
    await keelDb.drop();
    await bareDb.drop();
    console.log(JSON.stringify(result));
  } else {
    console.error("usage: floor-process.ts sqlite <NORMAL|FULL> <dir> | postgres");
    process.exitCode = 2;
  }
} finally {
  await store?.close();
}
