/**
 * `npm run bench checkpoint`: Keel's durable savers against @langchain/langgraph-checkpoint-sqlite
 * and -postgres in the same process, each library on its own engine (what a user of each gets).
 *
 * - 100-node chain, one checkpoint per step, SQLite WAL at synchronous=NORMAL (both), then at
 *   synchronous=FULL (both), then Postgres: microseconds per step, median of alternating rounds.
 *   Both engines run with the same `durability` option: `sync` (each step durable before the
 *   next starts) everywhere, and on Postgres also `async` (LangGraph.js's default, where a
 *   step's save overlaps the next step).
 * - Storage: 500 steps appending one message each; database bytes after a WAL checkpoint.
 * - The floor (floor.ts): one bare prepared INSERT + commit of a row the size of Keel's step row,
 *   on each database; a `sync` step cannot cost less. Printed with Keel's ratio to it and issue
 *   21's target. Measured in a process of its own (floor-process.ts: Keel, the floor and the
 *   engine alone alternating, LangGraph.js not loaded), so that Keel's rounds are not billed for
 *   the collection of LangGraph.js's garbage.
 * - The engine alone (noop-saver.ts), in the floor's rounds: the chain on a saver that stores
 *   nothing, so a step splits into the engine's share and the saver's (Keel − engine).
 * - Postgres under load (pool.ts): 32 threads stepping at once, steps/s and p99 step latency.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemorySaver as LgMemorySaver } from "@langchain/langgraph";
import { PostgresSaver as LgPostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver as LgSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { MemorySaver, PostgresSaver, SqliteSaver } from "../../src/checkpoint/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import {
  type Comparison,
  type Figures,
  measure,
  median,
  medianFigures,
  printTable,
  warmUntilSteady,
} from "../lib/report.js";
import { walFramesOf } from "../runtime/wal-frames.js";
import {
  CHAIN_LENGTH,
  type Invokable,
  keelChain,
  keelMessages,
  langgraphChain,
  langgraphMessages,
  MESSAGE_STEPS,
} from "./graphs.js";
import { CONCURRENT_THREADS, poolUnderLoad } from "./pool.js";

const ROUNDS = Number(process.env.KEEL_BENCH_ROUNDS ?? 7);
const workdir = mkdtempSync(join(tmpdir(), "keel-bench-ck-"));
let threadCounter = 0;

type Durability = "sync" | "async";

/**
 * Microseconds per chain step, wall and CPU: one invoke of the 100-node chain on a fresh thread.
 * No `gc()` first: a forced collection leaves sweeping to the next run, which costs a short run
 * (Keel's) proportionally more; collections then fall where each library's allocation causes them.
 */
async function microsPerStep(graph: Invokable, durability: Durability): Promise<Figures> {
  const config = {
    configurable: { thread_id: `bench-${++threadCounter}` },
    recursionLimit: 1000,
    durability,
  };
  return measure(CHAIN_LENGTH, () => graph.invoke({ count: 0, label: "x" }, config));
}

interface Measured {
  keel: Figures;
  peer: Figures;
}

/** Alternates the two graphs round by round; returns the median of each, wall and CPU. */
async function alternating(
  keel: Invokable,
  peer: Invokable,
  durability: Durability = "sync",
): Promise<Measured> {
  await warmUntilSteady(() => microsPerStep(keel, durability));
  await warmUntilSteady(() => microsPerStep(peer, durability));
  const samples: Record<keyof Measured, Figures[]> = { keel: [], peer: [] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.keel.push(await microsPerStep(keel, durability));
    samples.peer.push(await microsPerStep(peer, durability));
  }
  return { keel: medianFigures(samples.keel), peer: medianFigures(samples.peer) };
}

/** Keel, the floor and the engine alone, measured by floor-process.ts in a process of its own. */
function floorRounds(args: string[]): { keel: Figures; floor: Figures; engine: Figures } {
  const script = join(dirname(fileURLToPath(import.meta.url)), "floor-process.ts");
  const output = execFileSync(process.execPath, ["--import", "tsx", script, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(output.trim().split("\n").at(-1) ?? "");
}

async function keelSqliteStore(name: string, synchronous: "NORMAL" | "FULL"): Promise<Store> {
  return openStore({ db: join(workdir, `${name}.db`), synchronous, backupBeforeMigrate: false });
}

function langgraphSqlite(name: string, synchronous: "NORMAL" | "FULL") {
  const db = new Database(join(workdir, `${name}.db`));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  return { saver: new LgSqliteSaver(db), db };
}

const rows: Comparison[] = [];
/** The same rounds in CPU time. */
const cpuRows: Comparison[] = [];
/** Keel's figures next to what one bare commit costs on the same database (see floor.ts). */
const floors: Array<{
  name: string;
  keel: Figures;
  floor: Figures;
  engine: Figures;
  target: number;
}> = [];
/** What one chain step writes to the WAL, page by page, by owning table or index. */
let framesLine = "";

/**
 * Runs `graph` (at synchronous=OFF, to be quick) until its database's WAL file stops growing:
 * the log has reached its autocheckpoint size once and restarted, so later commits reuse it.
 */
async function growWal(database: Database.Database, path: string, graph: Invokable): Promise<void> {
  const synchronous = database.pragma("synchronous", { simple: true }) as number;
  database.pragma("synchronous = OFF");
  try {
    let previous = -1;
    for (let runs = 0; runs < 500; runs++) {
      await microsPerStep(graph, "sync");
      const size = statSync(`${path}-wal`).size;
      if (size === previous) return;
      previous = size;
    }
  } finally {
    database.pragma(`synchronous = ${synchronous}`);
  }
}

/**
 * WAL frames (pages) per step of one chain run on a fresh thread, attributed to the b-tree that
 * owns each page (the header page counts as `sqlite_schema`): the pages a step's commit writes
 * and, at synchronous=FULL, fsyncs.
 */
async function framesPerStep(store: Store, path: string, graph: Invokable): Promise<string> {
  if (store.native.dialect !== "sqlite") return "";
  const frames = await walFramesOf(store.native.database, path, () => microsPerStep(graph, "sync"));
  const perStep = (n: number) => (n / CHAIN_LENGTH).toFixed(2);
  const owners = [...frames.byTree]
    .sort((a, b) => b[1] - a[1])
    .map(([owner, n]) => `${owner} ${perStep(n)}`)
    .join(", ");
  return `WAL frames per step (SQLite, Keel chain): ${perStep(frames.frames)} pages in ${perStep(frames.commits)} commits: ${owners}`;
}

/** Records one comparison: wall time in the main table, CPU time in the second. */
function record(row: Omit<Comparison, "keel" | "peer" | "unit">, measured: Measured): void {
  rows.push({ ...row, unit: "µs/step", keel: measured.keel.wall, peer: measured.peer.wall });
  const { target: _target, ...untargeted } = row;
  cpuRows.push({
    ...untargeted,
    unit: "CPU µs/step",
    keel: measured.keel.cpu,
    peer: measured.peer.cpu,
  });
}

// Context, not a target of this issue: the same chain on each engine's in-memory saver shows how
// much of a durable step is the engine's own checkpointing work.
record(
  { name: "100-node chain, MemorySaver (engine context)", peerName: "langgraph MemorySaver" },
  await alternating(keelChain(new MemorySaver()), langgraphChain(new LgMemorySaver())),
);

for (const synchronous of ["NORMAL", "FULL"] as const) {
  const store = await keelSqliteStore(`keel-chain-${synchronous}`, synchronous);
  const peer = langgraphSqlite(`lg-chain-${synchronous}`, synchronous);
  const keel = keelChain(SqliteSaver.fromStore(store));
  const measured = await alternating(keel, langgraphChain(peer.saver), "sync");
  floors.push({
    name: `SQLite WAL synchronous=${synchronous}`,
    ...floorRounds(["sqlite", synchronous, workdir]),
    target: synchronous === "NORMAL" ? 1.5 : 1.15,
  });
  record(
    {
      name: `100-node chain, SQLite WAL synchronous=${synchronous}, durability sync`,
      peerName: "langgraph-checkpoint-sqlite",
      target: synchronous === "NORMAL" ? 20 : 5,
    },
    measured,
  );
  if (synchronous === "NORMAL")
    framesLine = await framesPerStep(store, join(workdir, `keel-chain-${synchronous}.db`), keel);
  if (synchronous === "FULL" && store.native.dialect === "sqlite") {
    // The same pair once each WAL file has been filled to its autocheckpoint size and restarted
    // (what a long-lived database sees): commits then overwrite frames in place instead of
    // growing the file, whose growth makes each fsync also commit the file's new size.
    await growWal(store.native.database, join(workdir, `keel-chain-${synchronous}.db`), keel);
    const peerChain = langgraphChain(peer.saver);
    await growWal(peer.db, join(workdir, `lg-chain-${synchronous}.db`), peerChain);
    record(
      {
        name: "100-node chain, SQLite WAL synchronous=FULL, WAL file grown (steady state)",
        peerName: "langgraph-checkpoint-sqlite",
      },
      await alternating(keel, peerChain, "sync"),
    );
  }
  await store.close();
  peer.db.close();
}

if (await postgresAvailable()) {
  const keelDb = await createTestDatabase("bench_keel", { synchronousCommit: "on" });
  const peerDb = await createTestDatabase("bench_langgraph", { synchronousCommit: "on" });
  const store = await openStore({ db: keelDb.url });
  const peerSaver = LgPostgresSaver.fromConnString(peerDb.url);
  await peerSaver.setup();
  for (const durability of ["sync", "async"] as const) {
    const measured = await alternating(
      keelChain(PostgresSaver.fromStore(store)),
      langgraphChain(peerSaver),
      durability,
    );
    record(
      {
        name: `100-node chain, Postgres, durability ${durability}`,
        peerName: "langgraph-checkpoint-postgres",
        target: 5,
      },
      measured,
    );
  }
  const pool = await poolUnderLoad(
    PostgresSaver.fromStore(store),
    peerSaver,
    Number(process.env.KEEL_BENCH_POOL_ROUNDS ?? 3),
  );
  const poolName = `Postgres under load: ${CONCURRENT_THREADS} threads stepping at once, sync`;
  rows.push({
    name: `${poolName}, throughput`,
    unit: "steps/s",
    keel: pool.keel.stepsPerSecond,
    peer: pool.peer.stepsPerSecond,
    peerName: "langgraph-checkpoint-postgres",
    higherIsBetter: true,
  });
  rows.push({
    name: `${poolName}, p99 step latency`,
    unit: "ms",
    keel: pool.keel.p99Ms,
    peer: pool.peer.p99Ms,
    peerName: "langgraph-checkpoint-postgres",
  });
  await store.close();
  await peerSaver.end();
  floors.push({ name: "Postgres", ...floorRounds(["postgres"]), target: 1.3 });
  await keelDb.drop();
  await peerDb.drop();
} else {
  console.log("Postgres unreachable: the Postgres pair was not measured.");
}

// Storage after 500 steps, one message appended per step, at synchronous=NORMAL.
{
  const store = await keelSqliteStore("keel-messages", "NORMAL");
  await keelMessages(SqliteSaver.fromStore(store)).invoke(
    { messages: [], turn: 0 },
    { configurable: { thread_id: "messages" }, recursionLimit: MESSAGE_STEPS + 10 },
  );
  if (store.native.dialect === "sqlite") store.native.database.pragma("wal_checkpoint(TRUNCATE)");
  await store.close();
  const peer = langgraphSqlite("lg-messages", "NORMAL");
  await langgraphMessages(peer.saver).invoke(
    { messages: [], turn: 0 },
    { configurable: { thread_id: "messages" }, recursionLimit: MESSAGE_STEPS + 10 },
  );
  peer.db.pragma("wal_checkpoint(TRUNCATE)");
  peer.db.close();
  const kib = (name: string) => statSync(join(workdir, `${name}.db`)).size / 1024;
  rows.push({
    name: `storage after ${MESSAGE_STEPS} steps appending one message`,
    unit: "KiB",
    keel: kib("keel-messages"),
    peer: kib("lg-messages"),
    peerName: "langgraph-checkpoint-sqlite",
    target: 10,
  });
}

{
  // Thread listing: 100,000 checkpoints on 1,000 threads (100 each), a page of 50 threads, Keel's
  // listThreads against the same page with a COUNT(*) per thread (the listing before it stopped
  // counting). LangGraph's savers have no thread listing to compare with.
  const store = await keelSqliteStore("keel-listing", "NORMAL");
  const saver = SqliteSaver.fromStore(store);
  const base = 1_700_000_000_000;
  await saver.sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
     INSERT INTO state_threads (id, created_at, updated_at) SELECT 'thread-' || i, ?, ? + i FROM n`,
    [base, base],
  );
  await saver.sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
     INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at)
     SELECT 'thread-' || (1 + i % 1000), '', printf('%08d', i), i + 1, 1, i, 'loop', '{}', '{}', '{}', ? FROM n`,
    [base],
  );
  const counted = `SELECT t.id, (SELECT c.id FROM state_checkpoints c WHERE c.thread_id = t.id AND c.checkpoint_ns = '' ORDER BY c.id DESC LIMIT 1) AS latest, (SELECT COUNT(*) FROM state_checkpoints c WHERE c.thread_id = t.id) AS n, t.lease_owner, t.lease_expires_at, t.created_at, t.updated_at FROM state_threads t ORDER BY t.updated_at DESC, t.id DESC LIMIT 50`;
  const page = async (fn: () => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await fn();
    return Number(process.hrtime.bigint() - start) / 1000 / 20;
  };
  const keelPage = () => saver.listThreads({ limit: 50 });
  const countedPage = () => saver.sql.all(counted, []);
  await page(keelPage);
  await page(countedPage);
  const keelSamples: number[] = [];
  const countedSamples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    keelSamples.push(await page(keelPage));
    countedSamples.push(await page(countedPage));
  }
  rows.push({
    name: "thread listing: a page of 50 threads, 100,000 checkpoints (SQLite)",
    unit: "µs/page",
    keel: median(keelSamples),
    peer: median(countedSamples),
    peerName: "the same page with COUNT(*) per thread",
  });
  await store.close();
}

printTable(
  `durable savers: Keel vs LangGraph.js, each on its own engine (median of ${ROUNDS} alternating rounds; lower is better)`,
  rows,
);
printTable(
  "the same rounds in CPU time (excludes waiting for the disk, the server and the scheduler: on a loaded machine the steadier figure, but not the issue's measure)",
  cpuRows,
);
console.log(
  `\n## the floor: one bare commit of a row the size of Keel's step row (prepared INSERT, autocommit), same database settings; Keel, the floor and the engine alone alternating in a process of their own (LangGraph.js not loaded), median of ${process.env.KEEL_BENCH_FLOOR_ROUNDS ?? 15} rounds\n`,
);
const µs = (value: number) => value.toFixed(1).padStart(7);
for (const { name, keel, floor, target } of floors)
  console.log(
    `${name.padEnd(36)} Keel ${µs(keel.wall)} µs/step (CPU ${µs(keel.cpu)})   bare commit ${µs(floor.wall)} µs (CPU ${µs(floor.cpu)})   Keel / floor ${(keel.wall / floor.wall).toFixed(2)}x (CPU ${(keel.cpu / floor.cpu).toFixed(2)}x), target ≤ ${target}x: ${keel.wall / floor.wall <= target ? "met" : "NOT met"}`,
  );
console.log(
  "\n## where Keel's step goes: the engine alone (the chain on a saver that stores nothing, same rounds) and the saver's share (Keel − engine) against the floor\n",
);
for (const { name, keel, floor, engine } of floors) {
  const saver = { wall: keel.wall - engine.wall, cpu: keel.cpu - engine.cpu };
  console.log(
    `${name.padEnd(36)} engine ${µs(engine.wall)} µs/step (CPU ${µs(engine.cpu)})   saver ${µs(saver.wall)} µs (CPU ${µs(saver.cpu)})   saver / floor ${(saver.wall / floor.wall).toFixed(2)}x (CPU ${(saver.cpu / floor.cpu).toFixed(2)}x)`,
  );
}
console.log(
  `\nload average at the end: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
if (framesLine) console.log(`\n${framesLine}`);
rmSync(workdir, { recursive: true, force: true });
