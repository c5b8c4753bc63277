/**
 * A governed tool call's ledger cost on SQLite against its floor. The cost is a ledgered no-op
 * call (`attempted` committed before the call, `succeeded` after, each with its audit event; the
 * result artifact) less the same tool called directly; the floor is the same rows written by bare
 * prepared statements in the same two commits (bench/runtime/floor.ts), on a second store with
 * the same settings. Alternating rounds; long enough to include the WAL checkpoints the writes
 * cause. Target: cost ≤ 1.2 × floor.
 */
import { join } from "node:path";
import { newId } from "../../src/core/index.js";
import { AuditWriter, ToolLedger, ToolRegistry } from "../../src/runtime/index.js";
import { openStore } from "../../src/store/index.js";
import { type Figures, measure, medianFigures } from "../lib/report.js";
import { writeFloorCalls } from "../runtime/floor.js";

const CALLS = 1_000;
const WARMUP = 300;
const ROUNDS = 7;

/** Per call: the ledger's cost (ledgered − direct) and the floor, wall and CPU, in µs. */
export interface LedgerCost {
  cost: Figures;
  floor: Figures;
}

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

/** Measures the ledger and its floor in `dir` (two fresh stores at the store's default settings). */
export async function ledgerCost(dir: string): Promise<LedgerCost> {
  const store = await openStore({ db: join(dir, "ledger.db"), backupBeforeMigrate: false });
  const floorStore = await openStore({ db: join(dir, "floor.db"), backupBeforeMigrate: false });
  if (floorStore.native.dialect !== "sqlite") throw new Error("the floor needs SQLite");
  const floorDb = floorStore.native.database;
  try {
    const tools = noopTools();
    const ledger = new ToolLedger({ store, tools, audit: new AuditWriter(store) });
    const tool = tools.get("bench.noop");
    const traceId = newId();
    let n = 0;
    const ledgered = async (count: number) => {
      for (let i = 0; i < count; i++) {
        await ledger.call({
          tool: "bench.noop",
          input: { i },
          idempotencyKey: `k-${n++}`,
          traceId,
          riskLevel: "low",
          autonomyLevel: "A4",
        });
      }
    };
    const direct = async (count: number) => {
      for (let i = 0; i < count; i++) {
        tool.validateInput({ i });
        await tool.handler(
          { i },
          { idempotencyKey: "k", toolCallId: "t", traceId, fence: 0, checkClaim: async () => {} },
        );
      }
    };
    let f = 0;
    const floor = async (count: number) => {
      writeFloorCalls(floorDb, f, count);
      f += count;
    };
    await ledgered(WARMUP);
    await direct(WARMUP);
    await floor(WARMUP);
    const figures: Record<"ledgered" | "direct" | "floor", Figures[]> = {
      ledgered: [],
      direct: [],
      floor: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      figures.ledgered.push(await measure(CALLS, () => ledgered(CALLS)));
      figures.direct.push(await measure(CALLS, () => direct(CALLS)));
      figures.floor.push(await measure(CALLS, () => floor(CALLS)));
    }
    const l = medianFigures(figures.ledgered);
    const d = medianFigures(figures.direct);
    return {
      cost: { wall: l.wall - d.wall, cpu: l.cpu - d.cpu },
      floor: medianFigures(figures.floor),
    };
  } finally {
    await store.close();
    await floorStore.close();
  }
}
