/**
 * bench/runtime: what governance costs.
 *  - Ledgered no-op tool calls (attempted committed before the call, succeeded after, each with
 *    its audit event and artifacts) against calling the same no-op tool directly: the ledger's
 *    cost per call is the difference (target: under 100 µs on SQLite, durable, at the store's
 *    default settings). Rounds are long enough to include the WAL checkpoints their writes cause,
 *    so the figure is what a sustained stream of calls pays; wall time is the target, the
 *    process's CPU time per call (every thread) is printed beside it because the machine is shared.
 *    Beside it, the floor (floor.ts): the same rows written by bare better-sqlite3 statements in
 *    two commits on a store with the same settings, what no ledger on this machine can beat.
 *    Postgres is measured the same way when reachable (no target).
 *  - On SQLite, the pages each side writes per call: WAL frames counted with checkpoints held off
 *    (wal-frames.ts), by the table or index that owns each page. Robust under load, unlike time.
 *  - Audit append throughput (one writer, hash-chained, one transaction per event).
 *  - `keel audit <trace_id>` with 1,000,000 events stored (target: under 50 ms), on SQLite: the
 *    command itself run in this process (open the store, read the trace, format the timeline,
 *    close), its output discarded; the bare `readAuditTrace` query beside it. Node's start and the
 *    CLI's module loading are not in it (they are the same for every command).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { auditCommands } from "../../src/cli/commands/audit.js";
import { newId } from "../../src/core/index.js";
import { AuditWriter, readAuditTrace, searchAudit } from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import {
  type Comparison,
  type Figures,
  measure,
  median,
  medianOf,
  printTable,
  timeMicros,
} from "../lib/report.js";
import { ledgerCalls } from "./ledger-calls.js";
import { type WalFrames, walFramesOf } from "./wal-frames.js";

/** Calls per measured round: SQLite checkpoints its WAL every few dozen to few hundred calls. */
const CALLS = { sqlite: 2_000, postgres: 500 } as const;
const WARMUP_CALLS = 300;
const APPENDS = 500;
const ROUNDS = 5;
const MILLION = 1_000_000;
const LEDGER_TARGET_MICROS = 100;
/**
 * Callers at once in the concurrent rows, as the branches of a fan-out or several runs in one
 * process call tools: their ledger writes share commits (`sqliteBatchedWrite`).
 */
const CONCURRENT_CALLERS = 8;
/** Calls whose WAL frames are counted, page by page. */
const FRAME_CALLS = 500;
/** Target lines printed under the table. */
const verdicts: string[] = [];

/** Wall and CPU microseconds (the whole process, every thread) spent running `fn`. */
const timeWallAndCpu = (fn: () => Promise<unknown>): Promise<Figures> => measure(1, fn);

/**
 * The ledger against direct calls, in alternating rounds; on SQLite also the floor (floor.ts:
 * the same rows by bare better-sqlite3) on `floorStore`, a second store with the same settings.
 */
async function ledgerFigures(
  store: Store,
  label: "sqlite" | "postgres",
  floorSide?: { store: Store; ledgerPath: string; floorPath: string },
): Promise<Comparison[]> {
  const floorStore = floorSide?.store;
  const calls = CALLS[label];
  const floorDb = floorStore?.native.dialect === "sqlite" ? floorStore.native.database : null;
  const {
    ledgered: ledgeredCalls,
    direct: directCalls,
    floor: floorCalls,
  } = ledgerCalls(store, floorDb);
  /** `count` calls made by `CONCURRENT_CALLERS` callers, each calling one after another. */
  const atOnce = (calls: (count: number) => Promise<void>) => async (count: number) => {
    const each = Math.ceil(count / CONCURRENT_CALLERS);
    await Promise.all(Array.from({ length: CONCURRENT_CALLERS }, () => calls(each)));
  };
  await ledgeredCalls(WARMUP_CALLS);
  await directCalls(WARMUP_CALLS);
  await floorCalls(WARMUP_CALLS);
  // Alternating rounds, so that a noisy neighbour hits every side alike.
  const ledgered: { wall: number; cpu: number }[] = [];
  const direct: { wall: number; cpu: number }[] = [];
  const floor: { wall: number; cpu: number }[] = [];
  const concurrent: { wall: number; cpu: number }[] = [];
  const concurrentDirect: { wall: number; cpu: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ledgered.push(await timeWallAndCpu(() => ledgeredCalls(calls)));
    direct.push(await timeWallAndCpu(() => directCalls(calls)));
    concurrent.push(await timeWallAndCpu(() => atOnce(ledgeredCalls)(calls)));
    concurrentDirect.push(await timeWallAndCpu(() => atOnce(directCalls)(calls)));
    if (floorDb) floor.push(await timeWallAndCpu(() => floorCalls(calls)));
  }
  if (floorDb && floorSide && store.native.dialect === "sqlite") {
    const ledgerDb = store.native.database;
    const ledgerFrames = await walFramesOf(ledgerDb, floorSide.ledgerPath, () =>
      ledgeredCalls(FRAME_CALLS),
    );
    const floorFrames = await walFramesOf(floorDb, floorSide.floorPath, () =>
      floorCalls(FRAME_CALLS),
    );
    verdicts.push(framesLine("ledger", ledgerFrames), framesLine("floor", floorFrames));
  }
  const perCall = median(ledgered.map((r) => r.wall)) / calls;
  const directPerCall = median(direct.map((r) => r.wall)) / calls;
  const overhead = perCall - directPerCall;
  const cpuOverhead =
    (median(ledgered.map((r) => r.cpu)) - median(direct.map((r) => r.cpu))) / calls;
  // On SQLite the target stands as the peer: the ratio is target / cost, met at 1x or more.
  const versus =
    label === "sqlite"
      ? { peer: LEDGER_TARGET_MICROS, peerName: "target", target: 1 }
      : { peer: undefined, peerName: "-" };
  const concurrentCalls = Math.ceil(calls / CONCURRENT_CALLERS) * CONCURRENT_CALLERS;
  const concurrentOverhead =
    (median(concurrent.map((r) => r.wall)) - median(concurrentDirect.map((r) => r.wall))) /
    concurrentCalls;
  const costRows: Comparison[] = [
    {
      name: `${label}: ledger cost per call, wall${label === "sqlite" ? ` (target < ${LEDGER_TARGET_MICROS} µs)` : ""}`,
      unit: "µs",
      keel: overhead,
      ...versus,
    },
    {
      name: `${label}: ledger cost per call, CPU (all threads)`,
      unit: "µs",
      keel: cpuOverhead,
      peer: undefined,
      peerName: "-",
    },
    {
      name: `${label}: ledger cost per call, ${CONCURRENT_CALLERS} callers at once, wall`,
      unit: "µs",
      keel: concurrentOverhead,
      ...versus,
    },
  ];
  if (floor.length > 0) {
    const floorWall = median(floor.map((r) => r.wall)) / calls;
    const floorCpu = median(floor.map((r) => r.cpu)) / calls;
    costRows.push(
      {
        name: `${label}: floor: the same rows, bare better-sqlite3, two commits, wall`,
        unit: "µs",
        keel: floorWall,
        peer: undefined,
        peerName: "-",
      },
      {
        name: `${label}: floor, CPU`,
        unit: "µs",
        keel: floorCpu,
        peer: undefined,
        peerName: "-",
      },
    );
    verdicts.push(
      `sqlite: the ledger adds ${overhead.toFixed(0)} µs per call (wall; ${cpuOverhead.toFixed(0)} µs CPU) — target < ${LEDGER_TARGET_MICROS} µs: ${overhead < LEDGER_TARGET_MICROS ? "ok" : "NO"}; ` +
        `${concurrentOverhead.toFixed(0)} µs with ${CONCURRENT_CALLERS} callers at once (shared commits): ${concurrentOverhead < LEDGER_TARGET_MICROS ? "ok" : "NO"}; ` +
        `writing its rows with nothing around them costs ${floorWall.toFixed(0)} µs (${floorCpu.toFixed(0)} µs CPU)`,
    );
  }
  const audit = new AuditWriter(store);
  const traceId = newId();
  let m = 0;
  const appendMicros = await medianOf(ROUNDS, () =>
    timeMicros(async () => {
      for (let i = 0; i < APPENDS; i++) {
        await audit.write(traceId, {
          stage: "execute",
          type: "bench.append",
          summary: `e${m++}`,
          outcome: "info",
        });
      }
    }),
  );
  return [
    {
      name: `${label}: ledgered no-op call`,
      unit: "calls/s",
      keel: 1e6 / perCall,
      peer: 1e6 / directPerCall,
      peerName: "direct call",
      higherIsBetter: true,
    },
    ...costRows,
    {
      name: `${label}: audit append`,
      unit: "events/s",
      keel: 1e6 / (appendMicros / APPENDS),
      peer: undefined,
      peerName: "-",
      higherIsBetter: true,
    },
  ];
}

/** One line: WAL frames (pages written) and commits per call, then by table or index. */
function framesLine(label: string, frames: WalFrames): string {
  const per = (count: number) => (count / FRAME_CALLS).toFixed(2);
  const trees = [...frames.byTree]
    .sort((a, b) => b[1] - a[1])
    .map(([tree, count]) => `${tree} ${per(count)}`)
    .join(", ");
  return `sqlite: ${label} writes ${per(frames.frames)} WAL frames per call in ${per(frames.commits)} commits: ${trees}`;
}

/**
 * Runs `keel audit <traceId> [--json] --db <path>` in this process, as the CLI's action does it
 * (open the store, read, format, print, close), with stdout discarded; returns what it printed.
 */
async function auditCommand(db: string, traceId: string, json: boolean): Promise<string> {
  const program = new Command().exitOverride();
  auditCommands.register(program);
  const write = process.stdout.write;
  let printed = "";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(["audit", traceId, "--db", db, ...(json ? ["--json"] : [])], {
      from: "user",
    });
  } finally {
    process.stdout.write = write;
  }
  if (process.exitCode) throw new Error(`keel audit failed: ${printed}`);
  return printed;
}

async function traceAtScale(store: Store, path: string): Promise<Comparison[]> {
  if (store.native.dialect !== "sqlite") throw new Error("sqlite only");
  const db = store.native.database;
  const traceId = newId();
  // 1,000,000 rows in bulk (not through the writer: the chain is irrelevant to read latency);
  // every 50,000th belongs to the trace we read, so it is spread across the table.
  db.exec(`
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${MILLION})
    INSERT INTO state_audit_events (id, seq, trace_id, stage, type, summary, outcome, recorded_at, prev_hash, event_hash)
    SELECT printf('00000000-0000-7000-8000-%012d', x), x,
           CASE WHEN x % 50000 = 0 THEN '${traceId}' ELSE printf('10000000-0000-7000-8000-%012d', x / 20) END,
           'execute', 'bench.bulk', 'bulk event ' || x, 'info', 1700000000000 + x,
           '${"0".repeat(64)}', '${"0".repeat(64)}'
    FROM c`);
  const queryMicros = await medianOf(15, () => timeMicros(() => readAuditTrace(store, traceId)));
  const events = await readAuditTrace(store, traceId);
  if (events.length !== MILLION / 50_000)
    throw new Error(`expected 20 events, got ${events.length}`);
  const printed = await auditCommand(path, traceId, false);
  if (printed.split("\n").length < events.length)
    throw new Error(`keel audit printed too little: ${printed}`);
  const commandMicros = await medianOf(15, () =>
    timeMicros(() => auditCommand(path, traceId, false)),
  );
  const jsonMicros = await medianOf(15, () => timeMicros(() => auditCommand(path, traceId, true)));
  // A type no event has: the search walks the whole log newest first (migration 007 dropped the
  // type index from the write path), the worst case of `keel audit search --type`.
  const searchMicros = await medianOf(3, () =>
    timeMicros(() => searchAudit(store, { type: "gate.approved" })),
  );
  return [
    {
      name: "sqlite: keel audit <trace> with 1,000,000 events: open + read + format + close (target < 50 ms)",
      unit: "ms",
      keel: commandMicros / 1000,
      peer: 50,
      peerName: "target",
      target: 1,
    },
    {
      name: "sqlite: keel audit <trace> --json, same",
      unit: "ms",
      keel: jsonMicros / 1000,
      peer: undefined,
      peerName: "-",
    },
    {
      name: "sqlite: of which the query (readAuditTrace)",
      unit: "ms",
      keel: queryMicros / 1000,
      peer: undefined,
      peerName: "-",
    },
    {
      name: "sqlite: keel audit search --type <absent type>, 1,000,000 events",
      unit: "ms",
      keel: searchMicros / 1000,
      peer: undefined,
      peerName: "-",
    },
  ];
}

const dir = mkdtempSync(join(tmpdir(), "keel-bench-runtime-"));
const rows: Comparison[] = [];
try {
  const ledgerPath = join(dir, "keel.db");
  const floorPath = join(dir, "floor.db");
  const sqlite = await openStore({ db: ledgerPath, backupBeforeMigrate: false });
  const floorStore = await openStore({ db: floorPath, backupBeforeMigrate: false });
  rows.push(
    ...(await ledgerFigures(sqlite, "sqlite", { store: floorStore, ledgerPath, floorPath })),
  );
  await floorStore.close();
  await sqlite.close();
  const bigPath = join(dir, "big.db");
  const big = await openStore({ db: bigPath, backupBeforeMigrate: false });
  rows.push(...(await traceAtScale(big, bigPath)));
  await big.close();
  if (await postgresAvailable()) {
    const database = await createTestDatabase("bench_runtime", { synchronousCommit: "on" });
    try {
      const pg = await openStore({ db: database.url });
      rows.push(...(await ledgerFigures(pg, "postgres")));
      await pg.close();
    } finally {
      await database.drop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printTable("runtime: the ledger and the audit log", rows);
console.log("");
for (const verdict of verdicts) console.log(verdict);
