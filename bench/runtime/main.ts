/**
 * bench/runtime: what governance costs.
 *  - Ledgered no-op tool calls (attempted committed before the call, succeeded after, each with
 *    its audit event and artifacts) against calling the same no-op tool directly: the ledger's
 *    cost per call (target: under 100 µs on SQLite), on SQLite and on Postgres when reachable.
 *  - Audit append throughput (one writer, hash-chained, one transaction per event).
 *  - Reading one trace's timeline (`readAuditTrace`) with 1,000,000 events stored (target: under
 *    50 ms), on SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId } from "../../src/core/index.js";
import {
  AuditWriter,
  readAuditTrace,
  searchAudit,
  ToolLedger,
  ToolRegistry,
} from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../../test/support/postgres.js";
import { type Comparison, medianOf, printTable, timeMicros } from "../lib/report.js";

const CALLS = 300;
const APPENDS = 500;
const ROUNDS = 3;
const MILLION = 1_000_000;

function noopTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "noop",
      namespace: "bench",
      version: "1.0.0",
      description: "does nothing",
      input_schema: { type: "object" },
      output_schema: { type: "object" },
      side_effects: "write",
    },
    () => ({}),
  );
  return tools;
}

async function ledgerFigures(store: Store, label: string): Promise<Comparison[]> {
  const tools = noopTools();
  const audit = new AuditWriter(store);
  const ledger = new ToolLedger({ store, tools, audit });
  const tool = tools.get("bench.noop");
  const traceId = newId();
  let n = 0;
  const ledgered = await medianOf(ROUNDS, () =>
    timeMicros(async () => {
      for (let i = 0; i < CALLS; i++) {
        await ledger.call({
          tool: "bench.noop",
          input: { i },
          idempotencyKey: `k-${n++}`,
          traceId,
          riskLevel: "low",
          autonomyLevel: "A4",
        });
      }
    }),
  );
  const direct = await medianOf(ROUNDS, () =>
    timeMicros(async () => {
      for (let i = 0; i < CALLS; i++) {
        tool.validateInput({ i });
        await tool.handler({ i }, { idempotencyKey: "k", toolCallId: "t", traceId });
      }
    }),
  );
  const perCall = ledgered / CALLS;
  const overhead = (ledgered - direct) / CALLS;
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
      peer: 1e6 / (direct / CALLS),
      peerName: "direct call",
      higherIsBetter: true,
    },
    {
      name: `${label}: ledger cost per call (target < 100 µs)`,
      unit: "µs",
      keel: overhead,
      peer: undefined,
      peerName: "-",
    },
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

async function traceAtScale(store: Store): Promise<Comparison[]> {
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
  const micros = await medianOf(15, () => timeMicros(() => readAuditTrace(store, traceId)));
  const events = await readAuditTrace(store, traceId);
  if (events.length !== MILLION / 50_000)
    throw new Error(`expected 20 events, got ${events.length}`);
  // A type no event has: the search walks the whole log newest first (migration 007 dropped the
  // type index from the write path), the worst case of `keel audit search --type`.
  const searchMicros = await medianOf(3, () =>
    timeMicros(() => searchAudit(store, { type: "gate.approved" })),
  );
  return [
    {
      name: "sqlite: keel audit <trace> with 1,000,000 events (target < 50 ms)",
      unit: "ms",
      keel: micros / 1000,
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
  const sqlite = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
  rows.push(...(await ledgerFigures(sqlite, "sqlite")));
  await sqlite.close();
  const big = await openStore({ db: join(dir, "big.db"), backupBeforeMigrate: false });
  rows.push(...(await traceAtScale(big)));
  await big.close();
  if (await postgresAvailable()) {
    const database = await createTestDatabase("bench_runtime");
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
