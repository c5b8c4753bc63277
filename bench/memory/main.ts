/**
 * Decision memory: record + audit latency, full-text search p50/p99 over N records (default
 * 100,000; KEEL_BENCH_MEMORY_RECORDS), and one maintenance pass — on SQLite and, when
 * reachable, Postgres. The bulk of the records is loaded with one SQL statement (through the
 * same triggers: history and full text); the timed records go through DecisionMemory.record.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { DecisionMemory } from "../../src/memory/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";

const N = Number(process.env.KEEL_BENCH_MEMORY_RECORDS ?? 100_000);
const WORDS =
  "postgres queue cache index shard replica backup schema lock vacuum batch stream token retry lease audit ledger graph rule worker".split(
    " ",
  );
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const ms = (v: number) => `${v.toFixed(3)} ms`;
/** CPU milliseconds (user + system) of this process spent in `work`. */
async function cpuOf(work: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
const rows: string[][] = [];

/**
 * Loads n records written at `at` (so the maintenance pass, 21 days on, decays every one of
 * them: three idle weeks, vitality decaying — a pass that changes all 100,000 records).
 */
async function bulkLoad(store: Store, n: number, at: number): Promise<void> {
  const pick = (i: string, k: number) =>
    `(CASE ((${i} * ${k}) % ${WORDS.length}) ${WORDS.map((w, n) => `WHEN ${n} THEN '${w}'`).join(" ")} END)`;
  const select = (
    i: string,
  ) => `'bench-' || ${i}, 'bench', 'decision', 'agent', 'active', 'target-' || ${i},
      'Decision ' || ${i} || ' on ' || ${pick(i, 7)}, 'Because ' || ${pick(i, 11)} || ' and ' || ${pick(i, 13)} || ' matter here', 'content', '{}', 1, ${at}, ${at}`;
  const columns =
    "id, namespace, kind, source, status, target, title, rationale, content, context_json, confidence, created_at, updated_at";
  if (store.dialect === "sqlite") {
    await sql
      .raw(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
      INSERT INTO state_memory_records (seq, ${columns}) SELECT i + 1000000, ${select("i")} FROM n`)
      .execute(store.kysely);
  } else {
    await sql
      .raw(
        `INSERT INTO state_memory_records (${columns}) SELECT ${select("i")} FROM generate_series(1, ${n}) i`,
      )
      .execute(store.kysely);
  }
}

async function run(label: string, store: Store): Promise<void> {
  const memory = new DecisionMemory(store, { namespace: "bench" });
  let t = performance.now();
  await bulkLoad(store, N, Date.now());
  // Statistics as autovacuum (Postgres) would gather them within a minute of a bulk load: the
  // planner chooses between walking the newest matches and the GIN index by them.
  await sql`ANALYZE`.execute(store.kysely);
  console.log(`${label}: loaded ${N} records in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const record: number[] = [];
  const recordCpu = await cpuOf(async () => {
    for (let i = 0; i < 300; i++) {
      t = performance.now();
      await memory.record({
        title: `Timed ${i}`,
        target: `timed-${i}`,
        rationale: "Measured through the public API",
      });
      record.push(performance.now() - t);
    }
  });
  record.sort((a, b) => a - b);
  const search: number[] = [];
  const searchCpu = await cpuOf(async () => {
    for (let i = 0; i < 300; i++) {
      const query = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`;
      t = performance.now();
      await memory.search({ query, limit: 5 });
      search.push(performance.now() - t);
    }
  });
  search.sort((a, b) => a - b);
  // The floor in the same run: one primary-key read through the same store (a round trip on
  // Postgres), so a loaded machine's share of the figures shows.
  const floor: number[] = [];
  for (let i = 0; i < 300; i++) {
    t = performance.now();
    await sql`SELECT id FROM state_memory_records WHERE id = ${`bench-${i + 1}`}`.execute(
      store.kysely,
    );
    floor.push(performance.now() - t);
  }
  floor.sort((a, b) => a - b);
  t = performance.now();
  let report: Awaited<ReturnType<DecisionMemory["maintain"]>> | undefined;
  const maintainCpu = await cpuOf(async () => {
    report = await memory.maintain(Date.now() + 21 * 86_400_000);
  });
  const maintenance = performance.now() - t;
  rows.push(
    [label, "floor: one-row read", ms(pct(floor, 0.5)), ms(pct(floor, 0.99)), ""],
    [label, "record + audit", ms(pct(record, 0.5)), ms(pct(record, 0.99)), ms(recordCpu / 300)],
    [
      label,
      `search (${N} records)`,
      ms(pct(search, 0.5)),
      ms(pct(search, 0.99)),
      ms(searchCpu / 300),
    ],
    [
      label,
      `maintenance (${report?.decayed} decayed, ${report?.vitalityChanged} vitality)`,
      ms(maintenance),
      "",
      ms(maintainCpu),
    ],
  );
}

const dir = mkdtempSync(join(tmpdir(), "keel-bench-memory-"));
try {
  const sqlite = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
  await run("sqlite", sqlite);
  await sqlite.close();
  if (await postgresAvailable()) {
    const database = await createTestDatabase("bench_memory", { synchronousCommit: "on" });
    const postgres = await openStore({ db: database.url });
    try {
      await run("postgres", postgres);
    } finally {
      await postgres.close();
      await database.drop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// CPU is this process's (the client's); Postgres's server time is in the wall figures only.
const header = ["dialect", "operation", "p50 (wall)", "p99 (wall)", "CPU per op (client)"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of rows) console.log(line(r));
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} on ${availableParallelism()} CPUs`,
);
