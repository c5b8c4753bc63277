/**
 * The three ways the ledger benches make `count` no-op tool calls: through the ledger (each call
 * `attempted` then `succeeded`, with its audit events and result artifact), directly (the tool's
 * own cost, to subtract), and as the floor (the same rows by bare prepared statements, floor.ts).
 */
import type Database from "better-sqlite3";
import { newId } from "../../src/core/index.js";
import { AuditWriter, ToolLedger, ToolRegistry } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { writeFloorCalls } from "./floor.js";

/** Makes `count` calls one after another. */
export type Calls = (count: number) => Promise<void>;

/** A registry holding `bench.noop`, a write tool that does nothing. */
export function noopTools(): ToolRegistry {
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

/** Ledgered and direct calls of `bench.noop` on `store`; floor calls on `floorDb` when given. */
export function ledgerCalls(
  store: Store,
  floorDb: Database.Database | null,
): { ledgered: Calls; direct: Calls; floor: Calls } {
  const tools = noopTools();
  const ledger = new ToolLedger({ store, tools, audit: new AuditWriter(store) });
  const tool = tools.get("bench.noop");
  const traceId = newId();
  let n = 0;
  let f = 0;
  return {
    ledgered: async (count) => {
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
    },
    direct: async (count) => {
      for (let i = 0; i < count; i++) {
        tool.validateInput({ i });
        await tool.handler(
          { i },
          { idempotencyKey: "k", toolCallId: "t", traceId, fence: 0, checkClaim: async () => {} },
        );
      }
    },
    floor: async (count) => {
      if (floorDb) writeFloorCalls(floorDb, f, count);
      f += count;
    },
  };
}
