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
});
