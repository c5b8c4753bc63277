/**
 * The child process of the lease test: runs a two-node graph on one thread, on SQLite or
 * Postgres, and prints its outcome as JSON (`{ status, result }` or `{ code, message }`).
 *
 * - `hold`: executes a run through the run store; its first node records its effect, prints
 *   `holding` and waits for a `go` line on stdin, so the parent knows the lease is held.
 * - `execute`: executes a run of the thread through the run store.
 * - `raw`: invokes the graph directly, skipping the run store (and its lease).
 *
 * Every node records its effect (thread, node, pid) in `lease_effects` before it returns.
 *
 * Usage: lease-worker <sqlite|postgres> <db path or url> <thread> <hold|execute|raw>
 */
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import pg from "pg";
import type { DurableSaver } from "../../../src/checkpoint/index.js";
import { PostgresSaver, RunStore, SqliteSaver } from "../../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../../src/index.js";

const [dialect, db, threadId, mode] = process.argv.slice(2);
if (!dialect || !db || !threadId || !mode) {
  console.error("usage: lease-worker <sqlite|postgres> <db> <thread> <hold|execute|raw>");
  process.exit(2);
}

let saver: DurableSaver;
let effect: (node: string) => Promise<void>;
let close: () => Promise<void>;
if (dialect === "sqlite") {
  const database = new Database(db);
  database.pragma("busy_timeout = 10000");
  database.pragma("foreign_keys = ON");
  const insert = database.prepare(
    "INSERT INTO lease_effects (thread_id, node, pid) VALUES (?, ?, ?)",
  );
  effect = async (node) => {
    insert.run(threadId, node, process.pid);
  };
  saver = new SqliteSaver({ database });
  close = async () => {
    database.close();
  };
} else {
  const pool = new pg.Pool({ connectionString: db, max: 2 });
  effect = async (node) => {
    await pool.query("INSERT INTO lease_effects (thread_id, node, pid) VALUES ($1, $2, $3)", [
      threadId,
      node,
      process.pid,
    ]);
  };
  saver = new PostgresSaver({ pool });
  close = () => pool.end();
}

const go = new Promise<void>((resolve) => {
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line === "go") resolve();
  });
});

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
const graph = new StateGraph(State)
  .addNode("first", async () => {
    await effect("first");
    if (mode === "hold") {
      process.stdout.write("holding\n");
      await go;
    }
    return { log: [`first@${process.pid}`] };
  })
  .addNode("second", async () => {
    await effect("second");
    return { log: ["second"] };
  })
  .addEdge(START, "first")
  .addEdge("first", "second")
  .addEdge("second", END)
  .compile({ checkpointer: saver });

const runs = new RunStore(saver, { leaseTtlMs: 60_000 });
try {
  if (mode === "raw") {
    const result = await graph.invoke({ log: [] }, { configurable: { thread_id: threadId } });
    process.stdout.write(`${JSON.stringify({ status: "invoked", result })}\n`);
  } else {
    const [existing] = await runs.list({ threadId, limit: 1 });
    const run =
      existing && existing.status !== "succeeded" ? existing : await runs.create({ threadId });
    const latest = await saver.getTuple({ configurable: { thread_id: threadId } });
    const done = await runs.execute(run.id, (config) =>
      graph.invoke(latest ? null : { log: [] }, config),
    );
    process.stdout.write(`${JSON.stringify({ status: done.run.status, result: done.result })}\n`);
  }
} catch (error) {
  const { code, message } = error as { code?: string; message?: string };
  process.stdout.write(`${JSON.stringify({ code, message })}\n`);
}
await close();
process.exit(0);
