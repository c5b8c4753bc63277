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
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver as LgMemorySaver } from "@langchain/langgraph";
import { PostgresSaver as LgPostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver as LgSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { MemorySaver, PostgresSaver, SqliteSaver } from "../../src/checkpoint/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import { type Comparison, printTable } from "../lib/report.js";
import {
  CHAIN_LENGTH,
  type Invokable,
  keelChain,
  keelMessages,
  langgraphChain,
  langgraphMessages,
  MESSAGE_STEPS,
} from "./graphs.js";

const ROUNDS = Number(process.env.KEEL_BENCH_ROUNDS ?? 7);
const WARMUP = 2;
const workdir = mkdtempSync(join(tmpdir(), "keel-bench-ck-"));
let threadCounter = 0;

type Durability = "sync" | "async";

/** Microseconds per chain step: one invoke of the 100-node chain on a fresh thread. */
async function microsPerStep(graph: Invokable, durability: Durability): Promise<number> {
  const config = {
    configurable: { thread_id: `bench-${++threadCounter}` },
    recursionLimit: 1000,
    durability,
  };
  const start = process.hrtime.bigint();
  await graph.invoke({ count: 0, label: "x" }, config);
  return Number(process.hrtime.bigint() - start) / 1000 / CHAIN_LENGTH;
}

/** Alternates the two graphs round by round; returns the median of each. */
async function alternating(
  keel: Invokable,
  peer: Invokable,
  durability: Durability = "sync",
): Promise<[number, number]> {
  for (let i = 0; i < WARMUP; i++) {
    await microsPerStep(keel, durability);
    await microsPerStep(peer, durability);
  }
  const keelTimes: number[] = [];
  const peerTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    keelTimes.push(await microsPerStep(keel, durability));
    peerTimes.push(await microsPerStep(peer, durability));
  }
  return [median(keelTimes), median(peerTimes)];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
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

// Context, not a target of this issue: the same chain on each engine's in-memory saver shows how
// much of a durable step is the engine's own checkpointing work.
{
  const [keel, lg] = await alternating(
    keelChain(new MemorySaver()),
    langgraphChain(new LgMemorySaver()),
  );
  rows.push({
    name: "100-node chain, MemorySaver (engine context)",
    unit: "µs/step",
    keel,
    peer: lg,
    peerName: "langgraph MemorySaver",
  });
}

for (const synchronous of ["NORMAL", "FULL"] as const) {
  const store = await keelSqliteStore(`keel-chain-${synchronous}`, synchronous);
  const peer = langgraphSqlite(`lg-chain-${synchronous}`, synchronous);
  const [keel, lg] = await alternating(
    keelChain(SqliteSaver.fromStore(store)),
    langgraphChain(peer.saver),
  );
  rows.push({
    name: `100-node chain, SQLite WAL synchronous=${synchronous}, durability sync`,
    unit: "µs/step",
    keel,
    peer: lg,
    peerName: "langgraph-checkpoint-sqlite",
    target: synchronous === "NORMAL" ? 20 : 5,
  });
  await store.close();
  peer.db.close();
}

if (await postgresAvailable()) {
  const keelDb = await createTestDatabase("bench_keel");
  const peerDb = await createTestDatabase("bench_langgraph");
  const store = await openStore({ db: keelDb.url });
  const peerSaver = LgPostgresSaver.fromConnString(peerDb.url);
  await peerSaver.setup();
  for (const durability of ["sync", "async"] as const) {
    const [keel, lg] = await alternating(
      keelChain(PostgresSaver.fromStore(store)),
      langgraphChain(peerSaver),
      durability,
    );
    rows.push({
      name: `100-node chain, Postgres, durability ${durability}`,
      unit: "µs/step",
      keel,
      peer: lg,
      peerName: "langgraph-checkpoint-postgres",
      target: 5,
    });
  }
  await store.close();
  await peerSaver.end();
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

printTable(
  `durable savers: Keel vs LangGraph.js, each on its own engine (median of ${ROUNDS} alternating rounds; lower is better)`,
  rows,
);
rmSync(workdir, { recursive: true, force: true });
