import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listToolCalls } from "../../src/cli/commands/ledger-read.js";
import { openStore, type Store } from "../../src/store/index.js";
import { runLedgerCliCases } from "./ledger-cli.case.js";

const dirs: string[] = [];
const stores: Store[] = [];
runLedgerCliCases({
  dialect: "sqlite",
  async open(label) {
    const dir = mkdtempSync(join(tmpdir(), `keel-ledger-cli-${label}-`));
    dirs.push(dir);
    const db = join(dir, "keel.db");
    const store = await openStore({ db, backupBeforeMigrate: false });
    stores.push(store);
    return { store, db };
  },
  async cleanup() {
    for (const store of stores) await store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  },
});

describe("keel ledger list: query plan (SQLite)", () => {
  it("finds the calls in doubt through the partial status index, not a scan of the ledger", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-ledger-cli-plan-"));
    dirs.push(dir);
    const store = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
    stores.push(store);
    if (store.native.dialect !== "sqlite") throw new Error("not sqlite");
    const db = store.native.database;
    // The statement the list sends, with the values it binds (SQLite plans with them).
    const seen: { source: string; params: unknown[] }[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      const statement = prepare(source);
      const all = statement.all.bind(statement);
      statement.all = ((...params: unknown[]) => {
        seen.push({ source, params });
        return all(...params);
      }) as typeof statement.all;
      return statement;
    }) as typeof db.prepare;
    try {
      await listToolCalls(store, { status: "unknown", limit: 100 });
    } finally {
      db.prepare = prepare;
    }
    const listed = seen.filter((s) => /from "state_tool_calls"/i.test(s.source));
    expect(listed).toHaveLength(1);
    const [{ source, params } = { source: "", params: [] }] = listed;
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...params) as { detail: string }[])
      .map((row) => row.detail)
      .join(" | ");
    expect(plan).toContain("USING INDEX ix_state_tool_calls_status");
    expect(plan).not.toMatch(/SCAN state_tool_calls/);
  });
});
