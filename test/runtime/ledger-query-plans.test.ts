import { afterAll, describe, expect, it } from "vitest";
import { AuditWriter, ToolLedger } from "../../src/runtime/index.js";
import { sqliteRuntimeHarness } from "./support/harness.js";
import { testTools } from "./support/tools.js";

// The ledger's reads by status and by run must use the indexes the write path pays for (each
// index is a page per commit). SQLite uses a partial index only when the query implies the
// index's condition: `listUnknown` once scanned the whole table (migration 007's partial status
// index was never used).
describe("ledger query plans: SQLite", () => {
  const harness = sqliteRuntimeHarness();
  afterAll(() => harness.cleanup());

  it("finds unknown calls through the partial status index, and a run's calls through the task index", async () => {
    const store = await harness.open("ledger_plans");
    if (store.native.dialect !== "sqlite") throw new Error("not sqlite");
    const db = store.native.database;
    const ledger = new ToolLedger({
      store,
      tools: testTools({ lines: [], calls: 0 }),
      audit: new AuditWriter(store),
    });
    // Every statement the ledger prepares for these reads, as the query builder sends it.
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      seen.push(source);
      return prepare(source);
    }) as typeof db.prepare;
    try {
      await ledger.listUnknown();
      await ledger.recoverInterrupted();
      await ledger.recoverInterrupted({ taskId: "run-1" });
    } finally {
      db.prepare = prepare;
    }
    const plans = seen
      .filter((source) => /from "state_tool_calls"/i.test(source))
      .map((source) => {
        const params = (source.match(/\?/g) ?? []).map(() => "x");
        return (db.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...params) as { detail: string }[])
          .map((row) => row.detail)
          .join(" | ");
      });
    expect(plans).toHaveLength(3);
    expect(plans[0]).toContain("USING INDEX ix_state_tool_calls_status");
    expect(plans[0]).not.toMatch(/SCAN state_tool_calls/);
    // Unscoped recovery reads the ledger (documented: indexing `attempted` costs every call two
    // page writes); a run's recovery goes through its task.
    expect(plans[1]).toMatch(/SCAN state_tool_calls/);
    expect(plans[2]).toContain("USING INDEX ix_state_tool_calls_task_id");
    expect(plans[2]).not.toMatch(/SCAN state_tool_calls/);
  });
});
