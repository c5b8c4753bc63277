/**
 * bench/store: the kernel database's hot paths.
 *  - Opening an existing SQLite database and checking its migrations (target under 20 ms),
 *    beside raw better-sqlite3 opening the same file and reading its user_version.
 *  - Single-row INSERT + commit throughput on SQLite through the store (Kysely query builder, and
 *    the store's native handle) against raw better-sqlite3 running the same statement (target:
 *    within 2x), with the Postgres figure beside it when a server is reachable.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import { type Comparison, medianOf, printTable, timeMicros } from "../lib/report.js";

const OPEN_TARGET_MS = 20;
const INSERT_RATIO_TARGET = 2; // the store may be at most 2x slower than raw better-sqlite3
const INSERTS = 2_000;
const ROUNDS = 5;

const dir = mkdtempSync(join(tmpdir(), "keel-bench-store-"));
const path = join(dir, "keel.db");
(await openStore({ db: path })).close();

// Open + migration check: a fresh process-level open each time (the migrations folder is read
// once per process, as it is in a real CLI run that opens once).
await (await openStore({ db: path })).close();
const openMs =
  (await medianOf(15, () =>
    timeMicros(async () => {
      const store = await openStore({ db: path });
      await store.close();
    }),
  )) / 1000;
const rawOpenMs =
  (await medianOf(15, () =>
    timeMicros(() => {
      const db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.pragma("user_version", { simple: true });
      db.close();
    }),
  )) / 1000;

let counter = 0;
const row = () => ({
  key: `bench.${counter++}`,
  value_json: '{"n":1}',
  updated_at: 1_700_000_000_000,
});

async function storeInsertsPerSecond(store: Store): Promise<number> {
  return medianOf(ROUNDS, async () => {
    const micros = await timeMicros(async () => {
      for (let i = 0; i < INSERTS; i++)
        await store.kysely.insertInto("config_preferences").values(row()).execute();
    });
    return INSERTS / (micros / 1e6);
  });
}

const sqliteStore = await openStore({ db: path });
const keelInserts = await storeInsertsPerSecond(sqliteStore);
const native = sqliteStore.native.dialect === "sqlite" ? sqliteStore.native.database : undefined;
const nativeStatement = native?.prepare(
  'insert into "config_preferences" ("key", "value_json", "updated_at") values (?, ?, ?)',
);
const nativeInserts = await medianOf(ROUNDS, async () => {
  const micros = await timeMicros(() => {
    for (let i = 0; i < INSERTS; i++) {
      const r = row();
      nativeStatement?.run(r.key, r.value_json, r.updated_at);
    }
  });
  return INSERTS / (micros / 1e6);
});
await sqliteStore.close();

// The peer: raw better-sqlite3, same pragmas (WAL, synchronous NORMAL), same statement.
const raw = new Database(path);
raw.pragma("journal_mode = WAL");
raw.pragma("synchronous = NORMAL");
raw.pragma("foreign_keys = ON");
const rawStatement = raw.prepare(
  'insert into "config_preferences" ("key", "value_json", "updated_at") values (?, ?, ?)',
);
const rawInserts = await medianOf(ROUNDS, async () => {
  const micros = await timeMicros(() => {
    for (let i = 0; i < INSERTS; i++) {
      const r = row();
      rawStatement.run(r.key, r.value_json, r.updated_at);
    }
  });
  return INSERTS / (micros / 1e6);
});
raw.close();

let postgresInserts: number | undefined;
if (await postgresAvailable()) {
  const database = await createTestDatabase("bench_store");
  try {
    const store = await openStore({ db: database.url });
    postgresInserts = await medianOf(3, async () => {
      const n = 500;
      const micros = await timeMicros(async () => {
        for (let i = 0; i < n; i++)
          await store.kysely.insertInto("config_preferences").values(row()).execute();
      });
      return n / (micros / 1e6);
    });
    await store.close();
  } finally {
    await database.drop();
  }
}
rmSync(dir, { recursive: true, force: true });

const rows: Comparison[] = [
  {
    name: "open existing SQLite db + check migrations",
    unit: "ms",
    keel: openMs,
    peer: rawOpenMs,
    peerName: "raw better-sqlite3 open",
  },
  {
    name: "insert+commit, SQLite, Kysely via store",
    unit: "rows/s",
    keel: keelInserts,
    peer: rawInserts,
    peerName: "raw better-sqlite3",
    higherIsBetter: true,
    target: 1 / INSERT_RATIO_TARGET,
  },
  {
    name: "insert+commit, SQLite, store.native",
    unit: "rows/s",
    keel: nativeInserts,
    peer: rawInserts,
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
printTable("store: open and single-row insert+commit", rows);
const ratio = keelInserts / rawInserts;
console.log(
  `\nopen + migration check: ${openMs.toFixed(2)} ms (target < ${OPEN_TARGET_MS} ms: ${openMs < OPEN_TARGET_MS ? "ok" : "MISSED"})`,
);
console.log(
  `SQLite insert+commit through the store: ${(ratio * 100).toFixed(0)}% of raw better-sqlite3 (target: within ${INSERT_RATIO_TARGET}x, i.e. >= ${(100 / INSERT_RATIO_TARGET).toFixed(0)}%: ${ratio >= 1 / INSERT_RATIO_TARGET ? "ok" : "MISSED"})`,
);
