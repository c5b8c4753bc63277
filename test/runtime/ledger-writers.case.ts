import { afterAll, describe, expect, it } from "vitest";
import { isKeelError, newId } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  AuditWriter,
  readAuditTrace,
  type ToolCallRequest,
  ToolLedger,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { RuntimeHarness } from "./support/harness.js";
import { testTools, type World } from "./support/tools.js";

/**
 * The ledger's writes with more than one writer: several stores (connections, or pools on
 * Postgres) on one database, as several workers would be. The chain must stay one unbroken
 * chain, every call must be recorded once, and a key raced by two workers must run once.
 */
export function runLedgerWriterCases(harness: RuntimeHarness): void {
  describe(`ledger writes with many writers: ${harness.dialect}`, () => {
    const extra: Store[] = [];
    afterAll(async () => {
      for (const store of extra) await store.close();
      await harness.cleanup();
    });

    async function workers(label: string, count: number) {
      const first = await harness.open(label);
      const stores = [first];
      for (let i = 1; i < count; i++) {
        const store = await openStore({ location: first.location, backupBeforeMigrate: false });
        extra.push(store);
        stores.push(store);
      }
      const world: World = { lines: [], calls: 0 };
      const tools = testTools(world);
      return {
        first,
        world,
        workers: stores.map((store) => {
          const audit = new AuditWriter(store);
          return { store, audit, ledger: new ToolLedger({ store, tools, audit }) };
        }),
      };
    }

    const request = (traceId: string, key: string, line: string): ToolCallRequest => ({
      tool: "test.append",
      input: { line },
      idempotencyKey: key,
      traceId,
      riskLevel: "medium",
      autonomyLevel: "A3",
      capabilities: ["fs:write"],
    });

    it("keeps one chain while calls and audit appends interleave across writers", async () => {
      const { first, world, workers: all } = await workers("writers_interleave", 3);
      const traceId = newId();
      await Promise.all(
        all.flatMap(({ ledger, audit }, w) =>
          Array.from({ length: 8 }, async (_, i) => {
            await ledger.call(request(traceId, `w${w}:k${i}`, `w${w}-${i}`));
            await audit.write(traceId, {
              stage: "execute",
              type: "step.noted",
              summary: `worker ${w} noted ${i}`,
              outcome: "info",
            });
          }),
        ),
      );
      expect(world.lines.length).toBe(24);
      const calls = await runtimeDb(first).selectFrom("state_tool_calls").selectAll().execute();
      expect(calls.map((c) => c.status)).toEqual(Array(24).fill("succeeded"));
      const types = (await readAuditTrace(first, traceId)).map((e) => e.type);
      expect(types.filter((t) => t === "tool_call.attempted").length).toBe(24);
      expect(types.filter((t) => t === "tool_call.succeeded").length).toBe(24);
      expect(types.filter((t) => t === "step.noted").length).toBe(24);
      expect(await verifyAuditLog(first)).toEqual({ ok: true, checked: 72, findings: [] });
    });

    it("runs a key raced by two workers once; the other is refused, never runs it again", async () => {
      const { first, world, workers: all } = await workers("writers_race", 2);
      const traceId = newId();
      for (let round = 0; round < 10; round++) {
        const key = `race:${round}`;
        const settled = await Promise.allSettled(
          all.map(({ ledger }) => ledger.call(request(traceId, key, `r${round}`))),
        );
        const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
        // Taken (the loser's insert hit the key), or, when the loser saw the winner's
        // `attempted` row first, in doubt: the ledger never assumes a live call succeeded.
        for (const error of refused) {
          expect(["ILLEGAL_TRANSITION", "TOOL_CALL_UNKNOWN"]).toContain(
            isKeelError(error) ? error.code : String(error),
          );
        }
      }
      // Each round's effect happened exactly once, whoever won.
      expect(world.lines).toEqual(Array.from({ length: 10 }, (_, r) => `r${r}`));
      const calls = await runtimeDb(first).selectFrom("state_tool_calls").selectAll().execute();
      expect(calls.length).toBe(10);
      expect((await verifyAuditLog(first)).ok).toBe(true);
    });

    it("rebuilds a missing chain head on the ledger's own write path", async () => {
      const { first, workers: all } = await workers("writers_head", 1);
      const traceId = newId();
      const { ledger } = all[0] ?? expect.unreachable();
      await ledger.call(request(traceId, "h:1", "one"));
      await runtimeDb(first).deleteFrom("state_audit_heads").execute();
      await ledger.call(request(traceId, "h:2", "two"));
      expect(await verifyAuditLog(first)).toEqual({ ok: true, checked: 4, findings: [] });
    });

    if (harness.dialect === "sqlite") {
      it("never joins a query-builder transaction left open on the shared connection", async () => {
        const { first, world, workers: all } = await workers("writers_open_tx", 1);
        const { ledger } = all[0] ?? expect.unreachable();
        const traceId = newId();
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => {
          entered = resolve;
        });
        // A transaction that writes, waits across an await, then rolls back.
        const rolledBack = runtimeDb(first)
          .transaction()
          .execute(async (tx) => {
            await tx
              .insertInto("state_audit_heads")
              .values({ id: "other", last_seq: 0, last_hash: "x", updated_at: 0 })
              .execute();
            entered();
            await held;
            throw new Error("roll back");
          })
          .catch((error: Error) => error.message);
        await inside;
        const call = ledger.call(request(traceId, "tx:1", "kept"));
        await new Promise((resolve) => setTimeout(resolve, 20));
        release();
        expect(await rolledBack).toBe("roll back");
        const outcome = await call;
        expect(outcome.toolCall.status).toBe("succeeded");
        expect(world.lines).toEqual(["kept"]);
        // The call and its events survived the other transaction's rollback.
        expect((await readAuditTrace(first, traceId)).map((e) => e.type)).toEqual([
          "tool_call.attempted",
          "tool_call.succeeded",
        ]);
        const heads = await runtimeDb(first).selectFrom("state_audit_heads").select("id").execute();
        expect(heads.map((h) => h.id)).toEqual(["audit"]);
      });
    }
  });
}
