/**
 * bench/store: the kernel database's hot paths, Keel and the raw driver measured alternately
 * (one round of each, in turns, so that machine load falls on both alike), medians quoted.
 *  - Opening an existing SQLite database and checking its migrations (target under 20 ms):
 *    warm (in this process, again and again) and cold (the first open in a fresh process, as a
 *    CLI run does: the migrations folder is read and every statement prepared for the first
 *    time), beside raw better-sqlite3 opening the same file and reading its user_version.
 *  - Single-row INSERT + commit throughput on SQLite through the store (Kysely query builder,
 *    and the store's native handle) against raw better-sqlite3 running the same statement with
 *    the store's settings (WAL, synchronous NORMAL, foreign keys, the same checkpoint interval),
 *    each on its own file (target: the query builder within 2x, i.e. >= 0.5x raw), with the
 *    Postgres figure beside it when a server is reachable.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import { type Comparison, printTable, timeMicros } from "../lib/report.js";

const OPEN_TARGET_MS = 20;
const INSERT_RATIO_TARGET = 2; // the store may be at most 2x slower than raw better-sqlite3
const INSERTS = 2_000;
const ROUNDS = 9;
const OPEN_ROUNDS = 21;
const COLD_ROUNDS = 7;
/** The store's `wal_autocheckpoint` (dialects/sqlite/sqlite-backend.ts), given to raw too. */
const WAL_AUTOCHECKPOINT_FRAMES = 10_000;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Runs each of `runs` once per round, rotating which goes first; medians per run. */
async function alternate<K extends string>(
  rounds: number,
  runs: Record<K, () => Promise<number> | number>,
): Promise<Record<K, number>> {
  const names = Object.keys(runs) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    K,
    number[]
  >;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as K;
      samples[name].push(await runs[name]());
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name])])) as Record<
    K,
    number
  >;
}

const dir = mkdtempSync(join(tmpdir(), "keel-bench-store-"));
const path = join(dir, "keel.db");
const rawPath = join(dir, "raw.db");
await (await openStore({ db: path })).close();
await (await openStore({ db: rawPath })).close();

// --- Open + migration check -------------------------------------------------------------------

const rawOpen = () => {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("user_version", { simple: true });
  db.close();
};
await (await openStore({ db: path })).close(); // warm the module and the migrations folder
const warm = await alternate(OPEN_ROUNDS, {
  keel: () =>
    timeMicros(async () => {
      const store = await openStore({ db: path });
      await store.close();
    }),
  raw: () => timeMicros(rawOpen),
});

// Cold: a fresh process per open; the child times only the open (imports done before it).
const coldChild = (mode: "keel" | "raw"): number => {
  const script =
    mode === "keel"
      ? `const { openStore } = await import(${JSON.stringify(new URL("../../src/store/index.ts", import.meta.url).href)});
         const start = process.hrtime.bigint();
         const store = await openStore({ db: ${JSON.stringify(path)} });
         await store.close();
         console.log(Number(process.hrtime.bigint() - start) / 1000);`
      : `const { default: Database } = await import("better-sqlite3");
         const start = process.hrtime.bigint();
         const db = new Database(${JSON.stringify(path)});
         db.pragma("journal_mode = WAL");
         db.pragma("user_version", { simple: true });
         db.close();
         console.log(Number(process.hrtime.bigint() - start) / 1000);`;
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", script],
    { encoding: "utf8", cwd: new URL("../..", import.meta.url).pathname },
  );
  const micros = Number(result.stdout.trim().split("\n").pop());
  if (!Number.isFinite(micros)) throw new Error(`cold open child failed: ${result.stderr}`);
  return micros;
};
const cold = await alternate(COLD_ROUNDS, {
  keel: () => coldChild("keel"),
  raw: () => coldChild("raw"),
});

// --- Single-row insert + commit ----------------------------------------------------------------

let counter = 0;
const row = () => ({
  key: `bench.${counter++}`,
  value_json: '{"n":1}',
  updated_at: 1_700_000_000_000,
});
const INSERT_SQL =
  'insert into "config_preferences" ("key", "value_json", "updated_at") values (?, ?, ?)';

const store: Store = await openStore({ db: path });
const native = store.native.dialect === "sqlite" ? store.native.database : undefined;
if (!native) throw new Error("the bench store is not SQLite");
const nativeStatement = native.prepare(INSERT_SQL);
const raw = new Database(rawPath);
raw.pragma("journal_mode = WAL");
raw.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_FRAMES}`);
raw.pragma("synchronous = NORMAL");
raw.pragma("foreign_keys = ON");
raw.pragma("busy_timeout = 5000");
const rawStatement = raw.prepare(INSERT_SQL);

const perSecond = (micros: number) => INSERTS / (micros / 1e6);
const inserts = await alternate(ROUNDS, {
  kysely: async () =>
    perSecond(
      await timeMicros(async () => {
        for (let i = 0; i < INSERTS; i++)
          await store.kysely.insertInto("config_preferences").values(row()).execute();
      }),
    ),
  native: async () =>
    perSecond(
      await timeMicros(() => {
        for (let i = 0; i < INSERTS; i++) {
          const r = row();
          nativeStatement.run(r.key, r.value_json, r.updated_at);
        }
      }),
    ),
  raw: async () =>
    perSecond(
      await timeMicros(() => {
        for (let i = 0; i < INSERTS; i++) {
          const r = row();
          rawStatement.run(r.key, r.value_json, r.updated_at);
        }
      }),
    ),
});
await store.close();
raw.close();

let postgresInserts: number | undefined;
if (await postgresAvailable()) {
  const database = await createTestDatabase("bench_store", { synchronousCommit: "on" });
  try {
    const pgStore = await openStore({ db: database.url });
    const n = 500;
    postgresInserts = (
      await alternate(3, {
        kysely: async () =>
          n /
          ((await timeMicros(async () => {
            for (let i = 0; i < n; i++)
              await pgStore.kysely.insertInto("config_preferences").values(row()).execute();
          })) /
            1e6),
      })
    ).kysely;
    await pgStore.close();
  } finally {
    await database.drop();
  }
}
rmSync(dir, { recursive: true, force: true });

const rows: Comparison[] = [
  {
    name: "open existing SQLite db + check migrations (warm)",
    unit: "ms",
    keel: warm.keel / 1000,
    peer: warm.raw / 1000,
    peerName: "raw better-sqlite3 open",
  },
  {
    name: "open existing SQLite db + check migrations (cold process)",
    unit: "ms",
    keel: cold.keel / 1000,
    peer: cold.raw / 1000,
    peerName: "raw better-sqlite3 open",
  },
  {
    name: "insert+commit, SQLite, Kysely via store",
    unit: "rows/s",
    keel: inserts.kysely,
    peer: inserts.raw,
    peerName: "raw better-sqlite3",
    higherIsBetter: true,
    target: 1 / INSERT_RATIO_TARGET,
  },
  {
    name: "insert+commit, SQLite, store.native",
    unit: "rows/s",
    keel: inserts.native,
    peer: inserts.raw,
    peerName: "raw better-sqlite3",
    higherIsBetter: true,
  },
  {
    name: "insert+commit, Postgres, Kysely via store",
    unit: "rows/s",
    keel: postgresInserts ?? Number.NaN,
    peer: undefined,
    peerName: postgresInserts === undefined ? "(server unreachable)" : "-",
    higherIsBetter: true,
  },
];
printTable(
  `store: open and single-row insert+commit (medians; runs alternated with the raw driver; ${ROUNDS} insert rounds of ${INSERTS}, ${OPEN_ROUNDS} warm and ${COLD_ROUNDS} cold opens)`,
  rows,
);
const worstOpenMs = Math.max(warm.keel, cold.keel) / 1000;
const ratio = inserts.kysely / inserts.raw;
console.log(
  `\nopen + migration check: warm ${(warm.keel / 1000).toFixed(2)} ms, cold ${(cold.keel / 1000).toFixed(2)} ms (target < ${OPEN_TARGET_MS} ms: ${worstOpenMs < OPEN_TARGET_MS ? "ok" : "MISSED"})`,
);
console.log(
  `SQLite insert+commit through the store: ${(ratio * 100).toFixed(0)}% of raw better-sqlite3 (target: within ${INSERT_RATIO_TARGET}x, i.e. >= ${(100 / INSERT_RATIO_TARGET).toFixed(0)}%: ${ratio >= 1 / INSERT_RATIO_TARGET ? "ok" : "MISSED"})`,
);
