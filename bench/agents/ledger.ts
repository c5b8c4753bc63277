/**
 * A governed tool call's ledger cost on SQLite against its floor. The cost is a ledgered no-op
 * call (`attempted` committed before the call, `succeeded` after, each with its audit event; the
 * result artifact) less the same tool called directly; the floor is the same rows written by bare
 * prepared statements in the same two commits (bench/runtime/floor.ts), on a second store with
 * the same settings. Alternating rounds; long enough to include the WAL checkpoints the writes
 * cause. Target: cost ≤ 1.2 × floor.
 */
import { join } from "node:path";
import { openStore } from "../../src/store/index.js";
import { type Figures, measure, medianFigures } from "../lib/report.js";
import { ledgerCalls } from "../runtime/ledger-calls.js";

const CALLS = 1_000;
// The ledger's code reaches its optimised tier after a few thousand calls (its functions run once
// or twice a call): after 300, the first three rounds cost 1.3–1.9x the later ones.
const WARMUP = 3_000;
const ROUNDS = 7;

/** Per call: the ledger's cost (ledgered − direct) and the floor, wall and CPU, in µs. */
export interface LedgerCost {
  cost: Figures;
  floor: Figures;
}

/** Measures the ledger and its floor in `dir` (two fresh stores at the store's default settings). */
export async function ledgerCost(dir: string): Promise<LedgerCost> {
  const store = await openStore({ db: join(dir, "ledger.db"), backupBeforeMigrate: false });
  const floorStore = await openStore({ db: join(dir, "floor.db"), backupBeforeMigrate: false });
  if (floorStore.native.dialect !== "sqlite") throw new Error("the floor needs SQLite");
  const floorDb = floorStore.native.database;
  try {
    const { ledgered, direct, floor } = ledgerCalls(store, floorDb);
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
