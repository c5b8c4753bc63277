import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { openStore } from "../../src/store/index.js";

const dir = mkdtempSync(join(tmpdir(), "keel-no-pg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the `pg` package has been loaded into this process (it is CommonJS: require's cache). */
function pgLoaded(): boolean {
  const cache = createRequire(import.meta.url).cache;
  return Object.keys(cache).some((path) => /[\\/]node_modules[\\/]pg[\\/]/.test(path));
}

// This file runs in a process of its own (vitest.config.ts: test/checkpoint is isolated).
it("a process that only opens SQLite never loads pg", async () => {
  const store = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
  try {
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile({ checkpointer: SqliteSaver.fromConnString(join(dir, "saver.db")) });
    expect(await graph.invoke({ n: 1 }, { configurable: { thread_id: "t" } })).toEqual({ n: 2 });
  } finally {
    await store.close();
  }
  expect(pgLoaded()).toBe(false);
});
