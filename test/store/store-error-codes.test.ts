/**
 * Store failures come back with STORE_* codes, never INTERNAL: a read-only database file, a disk
 * that fills during an IR run, a corrupt audit page (which `keel audit verify` reports as a
 * finding, exit 1). Read-only verbs leave no `-wal`/`-shm`; control characters in ids are
 * escaped when printed; a run that loses the race for its thread's lease is not left `pending`.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunStore, SqliteSaver } from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { startGovernedDocument } from "../../src/runtime/index.js";
import { openStore } from "../../src/store/index.js";
import { keelInProcess } from "../support/cli.js";
import { migratedSqliteFile } from "../support/templates.js";

/** The control characters in `text` other than those in `allowed`. */
function controlsIn(text: string, allowed: string): string[] {
  return [...text].filter((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 || (code >= 0x7f && code < 0xa0)) && !allowed.includes(c);
  });
}

async function workspace(): Promise<{ dir: string; db: string }> {
  const dir = mkdtempSync(join(tmpdir(), "keel-store-codes-"));
  const db = join(dir, "keel.db");
  await migratedSqliteFile(db);
  return { dir, db };
}

/** A document with one node that writes `size` characters into the state. */
function bigDocument(dir: string, size: number): string {
  writeFileSync(
    join(dir, "kinds.mjs"),
    `export function fill() { return { text: "x".repeat(${size}) }; }\n`,
  );
  const file = join(dir, "big.json");
  writeFileSync(
    file,
    JSON.stringify({
      ir_version: "1.0.0",
      id: "graph:big",
      state_schema: { text: "str?" },
      nodes: [
        { id: "fill", kind: "./kinds.mjs:fill" },
        { id: "end", kind: "halt" },
      ],
    }),
  );
  return file;
}

describe("store failures have STORE_* codes", () => {
  it("a THREAD_LEASED loser leaves no pending run: it is failed, saying why", async () => {
    const { dir, db } = await workspace();
    const store = await openStore({ db, backupBeforeMigrate: false });
    try {
      const saver = SqliteSaver.fromStore(store);
      const runs = new RunStore(saver);
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
        .addNode("wait", async (s: { n: number }) => {
          await gate;
          return { n: s.n + 1 };
        })
        .addEdge(START, "wait")
        .addEdge("wait", END)
        .compile({ checkpointer: saver });
      const holder = await runs.create({ graphId: "holder" });
      const executing = runs.execute(holder.id, (config) => graph.invoke({ n: 0 }, config));
      for (let i = 0; i < 200 && (await runs.get(holder.id)).status !== "running"; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));

      const doc = bigDocument(dir, 10);
      const loser = await keelInProcess(
        ["run", doc, "--thread", holder.threadId, "--input", "{}", "--db", db, "--json"],
        { cwd: dir },
      );
      expect(loser.exitCode, loser.stdout).toBe(2);
      expect((loser.json.error as { code: string }).code).toBe("THREAD_LEASED");
      release();
      await executing;
      const onThread = await runs.list({ threadId: holder.threadId });
      expect(onThread.map((r) => r.status).sort()).toEqual(["failed", "succeeded"]);
      expect(onThread.find((r) => r.status === "failed")?.error?.code).toBe("THREAD_LEASED");
    } finally {
      await store.close();
    }
  });
  it("a disk that fills during an IR run is STORE_FULL (real SQLite, max_page_count), the run failed", async () => {
    const { dir, db } = await workspace();
    const doc = bigDocument(dir, 2_000_000);
    const store = await openStore({ db, backupBeforeMigrate: false });
    try {
      if (store.native.dialect !== "sqlite") throw new Error("sqlite expected");
      const pages = Number(store.native.database.pragma("page_count", { simple: true }));
      // The file may grow by 20 pages (80 KiB): the 2 MB step cannot be written.
      store.native.database.pragma(`max_page_count = ${pages + 20}`);
      await expect(
        startGovernedDocument(store, { path: doc }, { input: {} }),
      ).rejects.toMatchObject({
        code: "STORE_FULL",
        message: expect.stringContaining("keel runs resume"),
      });
    } finally {
      await store.close();
    }
  });

  it("a read-only database file is STORE_READ_ONLY for a writer, and read-only verbs leave no -wal/-shm", async (context) => {
    const { dir, db } = await workspace();
    const doc = bigDocument(dir, 10);
    // As root, permissions do not stop writes: the immutable attribute does (ext4); elsewhere, 0444.
    const root = process.getuid?.() === 0;
    try {
      if (root) execFileSync("chattr", ["+i", db], { stdio: "ignore" });
      else execFileSync("chmod", ["0444", db]);
    } catch {
      context.skip("cannot make the database file read-only here (chattr needs ext4 and root)");
    }
    try {
      for (const verb of [
        ["runs", "list"],
        ["runs", "show", "nope"],
        ["audit", "list"],
        ["audit", "search", "--type", "task."],
        ["ledger", "list"],
        ["job", "list"],
        ["job", "show", "d-20990101-000000-abcd"],
        ["config", "list"],
        ["config", "get", "rules.max_firings"],
        ["config", "show", "rules.max_firings"],
      ]) {
        const read = await keelInProcess([...verb, "--db", db, "--json"], { cwd: dir });
        expect(read.exitCode, `${verb.join(" ")}: ${read.stdout}`).not.toBe(2);
        expect(readdirSync(dir).sort(), verb.join(" ")).toEqual(
          ["keel.db", "kinds.mjs", "big.json"].sort(),
        );
      }
      const write = await keelInProcess(["run", doc, "--input", "{}", "--db", db, "--json"], {
        cwd: dir,
      });
      expect(write.exitCode, write.stdout).toBe(2);
      expect((write.json.error as { code: string }).code).toBe("STORE_READ_ONLY");
    } finally {
      if (root) execFileSync("chattr", ["-i", db]);
      else execFileSync("chmod", ["0644", db]);
    }
    expect(existsSync(db)).toBe(true);
  });

  it("a corrupt audit page: audit verify exits 1 with an unreadable finding; audit list is STORE_CORRUPT", async () => {
    const { dir, db } = await workspace();
    const doc = bigDocument(dir, 10);
    const ran = await keelInProcess(["run", doc, "--input", "{}", "--db", db, "--json"], {
      cwd: dir,
    });
    expect(ran.exitCode, ran.stdout).toBe(0);
    const store = await openStore({ db, backupBeforeMigrate: false });
    let rootPage = 0;
    let pageSize = 0;
    if (store.native.dialect === "sqlite") {
      const database = store.native.database;
      expect(
        Number(database.prepare("SELECT count(*) FROM state_audit_events").pluck().get()),
      ).toBeGreaterThan(0);
      rootPage = Number(
        database
          .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'state_audit_events'")
          .pluck()
          .get(),
      );
      pageSize = Number(database.pragma("page_size", { simple: true }));
    }
    await store.close();
    // Garbage over the table's root page, as a bad sector would leave it.
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0x41), 0, pageSize, (rootPage - 1) * pageSize);
    closeSync(fd);

    const verify = await keelInProcess(["audit", "verify", "--db", db, "--json"], { cwd: dir });
    expect(verify.exitCode, verify.stdout).toBe(1);
    expect(verify.json.ok).toBe(false);
    expect(verify.json.findings).toEqual([
      expect.objectContaining({
        kind: "unreadable",
        message: expect.stringContaining("STORE_CORRUPT"),
      }),
    ]);
    const list = await keelInProcess(["audit", "list", "--db", db, "--json"], { cwd: dir });
    expect(list.exitCode).toBe(2);
    expect((list.json.error as { code: string }).code).toBe("STORE_CORRUPT");
  });

  it("control characters in ids are escaped when printed", async () => {
    const { dir, db } = await workspace();
    const hostile = "t\u001b]0;owned\u0007\u001b[2J\r\nfake";
    const shown = await keelInProcess(["runs", "show", hostile, "--db", db], { cwd: dir });
    expect(shown.exitCode).toBe(5);
    expect(controlsIn(shown.stderr, "\n")).toEqual([]);
    // Messages may span lines (a line break stays); every other control is shown escaped.
    expect(shown.stderr).toContain("t\\x1b]0;owned\\x07\\x1b[2J\\r");
    // A thread with such an id, listed in a table: one line, escaped.
    const doc = bigDocument(dir, 10);
    const ran = await keelInProcess(
      ["run", doc, "--thread", hostile, "--input", "{}", "--db", db, "--json"],
      { cwd: dir },
    );
    expect(ran.exitCode, ran.stdout).toBe(0);
    const listed = await keelInProcess(["runs", "list", "--db", db], { cwd: dir });
    expect(controlsIn(listed.stdout, "\n")).toEqual([]);
    expect(listed.stdout).toContain("t\\x1b]0;owned");
    expect(listed.stdout.trim().split("\n")).toHaveLength(2);
    // JSON output keeps the id exact (JSON escapes it).
    const json = await keelInProcess(["runs", "list", "--db", db, "--json"], { cwd: dir });
    expect((json.json.threads as { threadId: string }[])[0]?.threadId).toBe(
      "t\u001b]0;owned\u0007\u001b[2J\r\nfake",
    );
  });
});
