import { afterAll, describe, expect, it, vi } from "vitest";
import {
  inlined,
  postgresBatchedQuery,
  sqlLiteral,
} from "../../src/runtime/db/postgres-write-batch.js";
import { AuditWriter, ToolLedger, verifyAuditLog } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { postgresRuntimeHarness } from "./support/harness.js";
import { appendAtOnce, testTools, type World } from "./support/tools.js";

describe("sqlLiteral and inlined: a batched statement's parameters as literals", () => {
  it("quotes strings (quotes and backslashes escaped), numbers, and NULL", () => {
    expect(sqlLiteral(null)).toBe("NULL");
    expect(sqlLiteral(42)).toBe("'42'");
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral("a\\b")).toBe(" E'a\\\\b'");
  });

  it("refuses a number SQL cannot hold and a placeholder with no value", () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(RangeError);
    expect(() => inlined({ name: "q", text: "SELECT $1::text, $2::text", values: ["a"] })).toThrow(
      "q: $2 has no value",
    );
  });

  it("replaces $10 as itself, not as $1 followed by 0", () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlined({ name: "q", text: "SELECT $1::text, $10::text", values })).toBe(
      "SELECT 'v1'::text, 'v10'::text",
    );
  });
});

if (await postgresAvailable()) {
  describe("postgresBatchedQuery: group commit on Postgres", () => {
    const harness = postgresRuntimeHarness();
    afterAll(() => harness.cleanup());

    async function fresh(label: string) {
      const store = await harness.open(label);
      if (store.native.dialect !== "postgres") throw new Error("not postgres");
      const pool = store.native.pool;
      await pool.query("CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL, n int)");
      return { store, pool, query: vi.spyOn(pool, "query") };
    }

    const insert = (store: Store, v: string, n: string | number | null = null) => {
      if (store.native.dialect !== "postgres") throw new Error("not postgres");
      return postgresBatchedQuery<{ v: string }>(store.native.pool, {
        name: "test_batch_insert",
        text: "INSERT INTO t (v, n) VALUES ($1::text, $2::int) RETURNING v",
        values: [v, n],
      });
    };

    it("writes queued in the same turn share one round trip, each settling with its own rows", async () => {
      const { store, pool, query } = await fresh("pgbatch_shared");
      const odd = "it's a \\ back'slash — ünïcode";
      const rows = await Promise.all(["a", odd, "c"].map((v) => insert(store, v)));
      expect(rows).toEqual([[{ v: "a" }], [{ v: odd }], [{ v: "c" }]]);
      expect(query).toHaveBeenCalledTimes(1);
      const stored = await pool.query<{ v: string }>("SELECT v FROM t ORDER BY id");
      expect(stored.rows.map((r) => r.v)).toEqual(["a", odd, "c"]);
    });

    it("a lone write is a prepared statement of its own", async () => {
      const { store, query } = await fresh("pgbatch_alone");
      expect(await insert(store, "only", 7)).toEqual([{ v: "only" }]);
      expect(query).toHaveBeenCalledTimes(1);
      expect(query.mock.calls[0]?.[0]).toMatchObject({ name: "test_batch_insert" });
    });

    it("writes queued while a batch is on its way go together in the next one", async () => {
      const { store, query } = await fresh("pgbatch_next");
      const first = insert(store, "first");
      // Queued once the first batch has been sent (after the turn it was queued in).
      await new Promise((resolve) => setImmediate(resolve));
      const later = ["b", "c", "d"].map((v) => insert(store, v));
      await Promise.all([first, ...later]);
      expect(query).toHaveBeenCalledTimes(2);
    });

    it("a write the server refuses fails alone; the others of its batch commit", async () => {
      const { store, pool } = await fresh("pgbatch_failure");
      const results = await Promise.allSettled([
        insert(store, "a"),
        insert(store, "bad", "not a number"),
        insert(store, "c"),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "22P02" });
      const stored = await pool.query<{ v: string }>("SELECT v FROM t ORDER BY id");
      expect(stored.rows.map((r) => r.v)).toEqual(["a", "c"]);
    });

    it("a lost connection rejects every write of the batch", async () => {
      const { store } = await fresh("pgbatch_lost");
      if (store.native.dialect !== "postgres") throw new Error("not postgres");
      const lost = new Error("Connection terminated unexpectedly");
      vi.spyOn(store.native.pool, "query").mockRejectedValueOnce(lost as never);
      const results = await Promise.allSettled([insert(store, "a"), insert(store, "b")]);
      expect(results).toEqual([
        { status: "rejected", reason: lost },
        { status: "rejected", reason: lost },
      ]);
    });

    it("concurrent ledgered calls share round trips and keep one unbroken audit chain", async () => {
      const store = await harness.open("pgbatch_ledger");
      if (store.native.dialect !== "postgres") throw new Error("not postgres");
      const world: World = { lines: [], calls: 0 };
      const audit = new AuditWriter(store);
      await audit.ensureHead();
      const ledger = new ToolLedger({ store, tools: testTools(world), audit });
      const query = vi.spyOn(store.native.pool, "query");
      const outcomes = await appendAtOnce(ledger, 8);
      expect(outcomes.map((o) => o.toolCall.status)).toEqual(Array(8).fill("succeeded"));
      expect(world.calls).toBe(8);
      // Each call writes twice on its own (attempted, succeeded); together they share batches.
      const writes = query.mock.calls.filter(([q]) => isLedgerWrite(q));
      expect(writes.length).toBeLessThan(16);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });
  });
}

/** A ledger write as the pool sees it: a named ledger statement, or a batch of them. */
function isLedgerWrite(query: unknown): boolean {
  if (typeof query === "string") return query.includes("state_tool_calls");
  return (
    typeof query === "object" &&
    query !== null &&
    String((query as { name?: unknown }).name).startsWith("keel_ledger_")
  );
}
