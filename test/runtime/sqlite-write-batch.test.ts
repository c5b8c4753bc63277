import { closeSync, openSync, readSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteBatchedWrite } from "../../src/runtime/db/sqlite-write-batch.js";
import { AuditWriter, ToolLedger, verifyAuditLog } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { sqliteRuntimeHarness } from "./support/harness.js";
import { appendAtOnce, testTools, type World } from "./support/tools.js";

/** Commits in a WAL file: frames whose header records the database size after a commit. */
function walCommits(path: string): number {
  const fd = openSync(`${path}-wal`, "r");
  try {
    const header = Buffer.alloc(32);
    if (readSync(fd, header, 0, 32, 0) < 32) return 0;
    const pageSize = header.readUInt32BE(8);
    const frame = Buffer.alloc(24);
    let commits = 0;
    for (let offset = 32; readSync(fd, frame, 0, 24, offset) === 24; offset += 24 + pageSize) {
      if (frame.readUInt32BE(4) !== 0) commits += 1;
    }
    return commits;
  } finally {
    closeSync(fd);
  }
}

describe("sqliteBatchedWrite: group commit on SQLite", () => {
  const harness = sqliteRuntimeHarness();
  afterAll(() => harness.cleanup());

  async function fresh(label: string) {
    const store = await harness.open(label);
    if (store.native.dialect !== "sqlite") throw new Error("not sqlite");
    const db = store.native.database;
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    // Every commit stays in the log, so that it can be counted.
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.pragma("wal_autocheckpoint = 0");
    return { store, db, path: db.name };
  }

  const insert = (store: Store, v: string) => {
    if (store.native.dialect !== "sqlite") throw new Error("not sqlite");
    const db = store.native.database;
    return sqliteBatchedWrite(store, db, () => {
      db.prepare("INSERT INTO t (v) VALUES (?)").run(v);
      return v;
    });
  };

  it("writes queued in the same turn share one commit, each settling with its own value", async () => {
    const { store, db, path } = await fresh("batch_shared");
    const values = await Promise.all(["a", "b", "c"].map((v) => insert(store, v)));
    expect(values).toEqual(["a", "b", "c"]);
    expect(walCommits(path)).toBe(1);
    expect(db.prepare("SELECT v FROM t ORDER BY id").pluck().all()).toEqual(["a", "b", "c"]);
    await insert(store, "d");
    expect(walCommits(path)).toBe(2);
  });

  it("a write that throws is undone and rejected alone; the others of its batch commit", async () => {
    const { store, db } = await fresh("batch_failure");
    const failing = sqliteBatchedWrite(store, db, () => {
      db.prepare("INSERT INTO t (v) VALUES ('undone')").run();
      throw new Error("no");
    });
    const results = await Promise.allSettled([insert(store, "a"), failing, insert(store, "c")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: "no" });
    expect(db.prepare("SELECT v FROM t ORDER BY id").pluck().all()).toEqual(["a", "c"]);
    expect(db.inTransaction).toBe(false);
  });

  it("a failed COMMIT rejects every write of the batch and keeps none", async () => {
    const { store, db } = await fresh("batch_commit_failure");
    // A deferred foreign key is checked at COMMIT: the commit fails, not the statement.
    db.exec(`CREATE TABLE child (id INTEGER PRIMARY KEY,
      parent INTEGER REFERENCES t (id) DEFERRABLE INITIALLY DEFERRED)`);
    const orphan = sqliteBatchedWrite(store, db, () =>
      db.prepare("INSERT INTO child (parent) VALUES (999)").run(),
    );
    const results = await Promise.allSettled([insert(store, "a"), orphan]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
    expect(db.inTransaction).toBe(false);
  });

  it("concurrent ledgered calls share commits and keep one unbroken audit chain", async () => {
    const { store, path } = await fresh("batch_ledger");
    const world: World = { lines: [], calls: 0 };
    const ledger = new ToolLedger({
      store,
      tools: testTools(world),
      audit: new AuditWriter(store),
    });
    // Tools answering through a promise, so that the calls are under way together.
    const outcomes = await appendAtOnce(ledger, 8, "test.append_later");
    expect(outcomes.map((o) => o.toolCall.status)).toEqual(Array(8).fill("succeeded"));
    expect(world.calls).toBe(8);
    // Each call commits twice on its own; together their attempts and outcomes share commits.
    expect(walCommits(path)).toBeLessThan(16);
    expect((await verifyAuditLog(store)).ok).toBe(true);
  });

  it("a lone ledgered call of a synchronous tool is committed before `call` returns", async () => {
    const { store, db, path } = await fresh("batch_ledger_sync");
    const world: World = { lines: [], calls: 0 };
    const ledger = new ToolLedger({
      store,
      tools: testTools(world),
      audit: new AuditWriter(store),
    });
    const status = db.prepare("SELECT status FROM state_tool_calls WHERE idempotency_key = ?");
    // Nothing in it waits: its writes and the tool answer at once, and no promise is awaited
    // before its outcome is committed.
    const outcomes = appendAtOnce(ledger, 3);
    expect(world.lines).toEqual(["line 0", "line 1", "line 2"]);
    for (const key of ["key-0", "key-1", "key-2"]) {
      expect(status.pluck().get(key)).toBe("succeeded");
    }
    // So calls made at once one after another with such tools never overlap: two commits each.
    expect(walCommits(path)).toBe(6);
    expect((await outcomes).map((o) => o.replayed)).toEqual([false, false, false]);
    expect((await verifyAuditLog(store)).ok).toBe(true);
  });
});
