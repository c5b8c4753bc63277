/**
 * The child process of the crash test: runs (or resumes) one thread of the crash graph through
 * the run store, on SQLite or Postgres, printing `ready` once its database is open and the
 * final state as JSON when the run ends. The parent kills it with SIGKILL at random instants.
 *
 * Every node counts its own execution in a separate effects table, keyed by its task id (which
 * the engine hands the node in `configurable.__pregel_task_id`), committed before the node
 * returns: the count is what a real side effect would show.
 *
 * Usage: worker <sqlite|postgres> <db path or url> <effects db path, or "-" on Postgres> <thread>
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { DurableSaver } from "../../../src/checkpoint/index.js";
import { PostgresSaver, RunStore, SqliteSaver } from "../../../src/checkpoint/index.js";
import { buildCrashGraph, type EffectCounter } from "./crash-graph.js";

const [dialect, db, effectsDb, threadId] = process.argv.slice(2);
if (!dialect || !db || !effectsDb || !threadId) {
  console.error("usage: worker <sqlite|postgres> <db> <effects> <thread>");
  process.exit(2);
}

let saver: DurableSaver;
let count: EffectCounter;
let close: () => Promise<void>;

if (dialect === "sqlite") {
  const database = new Database(db);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("busy_timeout = 10000");
  database.pragma("foreign_keys = ON");
  const effects = new Database(effectsDb);
  effects.pragma("journal_mode = WAL");
  effects.pragma("busy_timeout = 10000");
  const bump = effects.prepare(
    "INSERT INTO crash_effects (thread_id, task_key, count) VALUES (?, ?, 1) " +
      "ON CONFLICT (thread_id, task_key) DO UPDATE SET count = count + 1",
  );
  count = async (key) => {
    bump.run(threadId, key);
  };
  saver = new SqliteSaver({ database });
  close = async () => {
    database.close();
    effects.close();
  };
} else {
  const pool = new pg.Pool({ connectionString: db, max: 3 });
  count = async (key) => {
    await pool.query(
      "INSERT INTO crash_effects (thread_id, task_key, count) VALUES ($1, $2, 1) " +
        "ON CONFLICT (thread_id, task_key) DO UPDATE SET count = crash_effects.count + 1",
      [threadId, key],
    );
  };
  saver = new PostgresSaver({ pool });
  close = () => pool.end();
}

const runs = new RunStore(saver, { leaseTtlMs: 60_000 });
const graph = buildCrashGraph(saver, count);
const existing = await runs.list({ threadId, limit: 1 });
const run = existing[0] ?? (await runs.create({ threadId, graphId: "crash" }));
process.stdout.write("ready\n");

const latest = await saver.getTuple({ configurable: { thread_id: threadId } });
// A kill that landed after the run finished (before the process exited) leaves nothing to do.
const result =
  run.status === "succeeded"
    ? latest?.checkpoint.channel_values
    : (
        await runs.execute(run.id, (config) =>
          graph.invoke(latest ? null : { log: [], total: 0 }, config),
        )
      ).result;
const finished = await runs.get(run.id);
process.stdout.write(`${JSON.stringify({ result, status: finished.status })}\n`);
await close();
