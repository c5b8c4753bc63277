import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../src/runtime/index.js";
import { WalCheckpointer } from "../../src/store/dialects/sqlite/wal-checkpointer.js";
import { noteSqliteWrites, openStore, type Store } from "../../src/store/index.js";
import { startScript } from "../checkpoint/support/child-script.js";
import { bundleChild } from "../support/child-bundle.js";
import { tempDir } from "./harness.js";

const dirs: string[] = [];
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dbPath(label: string): string {
  const dir = tempDir(label);
  dirs.push(dir);
  return join(dir, "wal.db");
}

function walDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE numbered (n INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
  return db;
}

function insertRows(db: Database.Database, from: number, count: number): void {
  const insert = db.prepare("INSERT INTO numbered (n, payload) VALUES (?, ?)");
  for (let n = from; n < from + count; n++) insert.run(n, "x".repeat(3000));
}

function walLog(db: Database.Database): { log: number; checkpointed: number } {
  return (db.pragma("wal_checkpoint(NOOP)") as Array<{ log: number; checkpointed: number }>)[0]!;
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A WAL database (autocheckpoint off) with a checkpointer copying batches of `batchFrames`. */
function checkpointed(label: string, batchFrames: number) {
  const path = dbPath(label);
  const db = walDatabase(path);
  const checkpointer = new WalCheckpointer(db, {
    path,
    batchFrames,
    autocheckpointFrames: 1000,
    pollMs: 1,
  });
  return { path, db, checkpointer };
}

describe("background WAL checkpointer", () => {
  it("stays idle while the log is under a batch", async () => {
    const { db, checkpointer } = checkpointed("idle", 64);
    insertRows(db, 1, 5);
    noteSqliteWrites(db);
    expect(await checkpointer.stats()).toEqual({ started: false, passes: 0, framesCopied: 0 });
    await checkpointer.close();
    db.close();
  });

  it("once the log passes a batch, copies it back from its worker while the connection goes on writing", async () => {
    const { path, db, checkpointer } = checkpointed("copies", 16);
    insertRows(db, 1, 40);
    noteSqliteWrites(db);
    const stats = await until(
      () => checkpointer.stats(),
      (s) => s.passes > 0,
    );
    expect(stats.started).toBe(true);
    expect(stats.passes).toBeGreaterThan(0);
    expect(stats.framesCopied).toBeGreaterThanOrEqual(16);
    // The connection never checkpointed (autocheckpoint 0): the frames were copied by the worker.
    const log = walLog(db);
    expect(log.checkpointed).toBeGreaterThanOrEqual(16);
    insertRows(db, 41, 10);
    await checkpointer.close();
    db.close();
    // The last connection to close folds the log back and removes it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = new Database(path, { readonly: true });
    expect(reopened.prepare("SELECT count(*) AS n FROM numbered").get()).toEqual({ n: 50 });
    expect(reopened.pragma("integrity_check", { simple: true })).toBe("ok");
    reopened.close();
  });

  it("a worker that cannot open the database stops, and stats() still answers", async () => {
    const { path, db, checkpointer } = checkpointed("vanished", 16);
    insertRows(db, 1, 40);
    // The file is gone under its name (the open connection keeps it): the worker's open fails.
    renameSync(path, `${path}.moved`);
    noteSqliteWrites(db);
    const stats = await checkpointer.stats();
    expect(stats.started).toBe(true);
    expect(stats.passes).toBe(0);
    await checkpointer.close();
    db.close();
  });

  it("a store on a file under NORMAL has one; FULL, :memory:, read-only opens and backgroundCheckpoint: false do not", async () => {
    const path = dbPath("store");
    const opened: Store[] = [];
    const backendOf = (store: Store) =>
      (store as unknown as { backend: { walCheckpointer?: WalCheckpointer } }).backend;
    try {
      const file = await openStore({ db: path, backupBeforeMigrate: false });
      opened.push(file);
      expect(backendOf(file).walCheckpointer).toBeInstanceOf(WalCheckpointer);
      const memory = await openStore({ db: ":memory:" });
      opened.push(memory);
      expect(backendOf(memory).walCheckpointer).toBeUndefined();
      const full = await openStore({ db: path, synchronous: "FULL" });
      opened.push(full);
      expect(backendOf(full).walCheckpointer).toBeUndefined();
      const off = await openStore({ db: path, backgroundCheckpoint: false });
      opened.push(off);
      expect(backendOf(off).walCheckpointer).toBeUndefined();
      const readOnly = await openStore({ db: path, readOnly: true });
      opened.push(readOnly);
      expect(backendOf(readOnly).walCheckpointer).toBeUndefined();
    } finally {
      for (const store of opened.reverse()) await store.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it("a process with nothing left but closing waits for the worker to close, then exits, the log folded back", async () => {
    const writer = await bundleChild(join(import.meta.dirname, "fixtures", "wal-writer.ts"));
    const path = dbPath("close");
    const exit = await startScript(writer, [path, "close"]).exit;
    expect(exit.stderr).toBe("");
    expect(exit.exitCode).toBe(0);
    expect(exit.stdout).toContain("closed");
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it("a process killed (SIGKILL) while its worker copies the log leaves every committed row, intact", async () => {
    const writer = await bundleChild(join(import.meta.dirname, "fixtures", "wal-writer.ts"));
    const random = seededRandom(21);
    let passes = 0;
    for (let trial = 0; trial < 6; trial++) {
      const path = dbPath(`kill-${trial}`);
      const child = startScript(writer, [path, "kill"]);
      const target = 200 + Math.floor(random() * 1500);
      const line = await child.line((l) => {
        const n = Number(l.split(" ")[1]);
        return l.startsWith("committed ") && n >= target;
      });
      child.process.kill("SIGKILL");
      const exit = await child.exit;
      expect(exit.signal).toBe("SIGKILL");
      const committed = Number(line.split(" ")[1]);
      for (const l of exit.stdout.split("\n"))
        if (l.startsWith("passes ")) passes = Math.max(passes, Number(l.slice(7)));
      const db = new Database(path);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const { n, top } = db.prepare("SELECT count(*) AS n, max(n) AS top FROM numbered").get() as {
        n: number;
        top: number;
      };
      // Every row the child saw committed is there, with no gap below the last one.
      expect(top).toBeGreaterThanOrEqual(committed);
      expect(n).toBe(top);
      db.close();
    }
    // The kills landed while the worker was copying the log, not before it started.
    expect(passes).toBeGreaterThan(0);
  });
});
