/**
 * The child process of the crash test: runs (or resumes) one thread of the crash graph through
 * the run store, on SQLite or Postgres, answering its interrupt, and prints the final state as
 * JSON when the run ends.
 *
 * Kill points: the worker counts the instants where a crash is interesting and kills itself with
 * SIGKILL at the one `KEEL_CRASH_KILL_AT` names (1-based; none when unset), printing `kill <kind>`
 * first. The kinds: `node-start` (a task began, no effect yet), `node-effect` (its effect is
 * committed, its writes are not), `put` (a step's checkpoint is about to be saved),
 * `mid-commit` (inside the commit: on SQLite after a statement of the open transaction, before
 * COMMIT; on Postgres one turn of the event loop after the commit statement is sent, usually
 * before its answer arrives) and `durable`
 * (the save returned: the step is durable). After each durable save the worker prints
 * `durable <checkpoint id>`; the parent checks that every one survives the kill. At the end it
 * prints `events <n>`, the number of kill points it passed.
 *
 * Every node counts its own execution in a separate effects table, keyed by its task id (which
 * the engine hands the node in `configurable.__pregel_task_id`), committed before the node
 * returns: the count is what a real side effect would show.
 *
 * Usage: worker <sqlite|postgres> <db path or url> <effects db path, or "-" on Postgres> <thread>
 */
import type pg from "pg";
import type { DurableSaver, SqliteDatabase } from "../../../src/checkpoint/index.js";
import { PostgresSaver, RunStore, SqliteSaver } from "../../../src/checkpoint/index.js";
import { Command } from "../../../src/index.js";
import { buildCrashGraph, type EffectCounter } from "./crash-graph.js";

const [dialect, db, effectsDb, threadId] = process.argv.slice(2);
if (!dialect || !db || !effectsDb || !threadId) {
  console.error("usage: worker <sqlite|postgres> <db> <effects> <thread>");
  process.exit(2);
}

const killAt = Number(process.env.KEEL_CRASH_KILL_AT ?? 0);
let events = 0;
/** Counts a kill point; dies at the chosen one (stdout is a pipe: the write is synchronous). */
function killPoint(kind: string): void {
  events++;
  if (events !== killAt) return;
  process.stdout.write(`kill ${kind}\n`);
  process.kill(process.pid, "SIGKILL");
}

let saver: DurableSaver;
let count: EffectCounter;
let close: () => Promise<void>;

// Each driver is loaded only for its dialect (loading pg alone takes ~180 ms of a child's start).
if (dialect === "sqlite") {
  const { default: Database } = await import("better-sqlite3");
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
  // The saver's statements, with a kill point after each one run inside a transaction.
  const watched: SqliteDatabase = {
    prepare: ((sql: string) => {
      const statement = database.prepare(sql);
      return new Proxy(statement, {
        get(target, property) {
          if (property === "run")
            return (...params: unknown[]) => {
              const result = target.run(...params);
              if (database.inTransaction) killPoint("mid-commit");
              return result;
            };
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    }) as SqliteDatabase["prepare"],
    transaction: database.transaction.bind(database) as SqliteDatabase["transaction"],
  };
  saver = new SqliteSaver({ database: watched });
  close = async () => {
    database.close();
    effects.close();
  };
} else {
  const { default: postgres } = await import("pg");
  const pool = new postgres.Pool({ connectionString: db, max: 3 });
  count = async (key) => {
    await pool.query(
      "INSERT INTO crash_effects (thread_id, task_key, count) VALUES ($1, $2, 1) " +
        "ON CONFLICT (thread_id, task_key) DO UPDATE SET count = crash_effects.count + 1",
      [threadId, key],
    );
  };
  // A commit statement, with a kill point once it is on its way (the next turn of the loop).
  const query = ((...args: Parameters<pg.Pool["query"]>) => {
    const sent = (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    const first = args[0] as unknown;
    const text = typeof first === "string" ? first : (first as { text?: string }).text;
    if (text?.includes("INSERT INTO state_checkpoint")) setImmediate(() => killPoint("mid-commit"));
    return sent;
  }) as pg.Pool["query"];
  saver = new PostgresSaver({ pool: { query } });
  close = () => pool.end();
}

// Kill points around each save; `durable <id>` once the step is durable. A put the engine asks
// the saver to hold (a run's input checkpoint, `durability: "exit"`) is durable once the next
// `sync` put returns: that commit takes it with its own step.
const put = saver.put.bind(saver);
const held: string[] = [];
saver.put = async (...args: Parameters<DurableSaver["put"]>) => {
  killPoint("put");
  const saved = await put(...args);
  const id = saved.configurable?.checkpoint_id;
  const durability = args[0].durability;
  if (durability !== undefined && durability !== "sync") held.push(String(id));
  else {
    for (const earlier of held.splice(0)) process.stdout.write(`durable ${earlier}\n`);
    process.stdout.write(`durable ${id}\n`);
  }
  killPoint("durable");
  return saved;
};

const runs = new RunStore(saver, { leaseTtlMs: 60_000 });
const graph = buildCrashGraph(saver, count, killPoint);
const existing = await runs.list({ threadId, limit: 1 });
const run = existing[0] ?? (await runs.create({ threadId, graphId: "crash" }));
process.stdout.write("ready\n");

const latest = await saver.getTuple({ configurable: { thread_id: threadId } });
let result: unknown;
if (run.status === "succeeded") {
  // A kill that landed after the run finished (before the process exited) leaves nothing to do.
  result = latest?.checkpoint.channel_values;
} else {
  // A paused run is answered; a run killed while pausing pauses again on resume, then is answered.
  let input: unknown =
    run.status === "paused"
      ? new Command({ resume: "yes" })
      : latest
        ? null
        : { log: [], total: 0 };
  for (;;) {
    const done = await runs.execute(run.id, (config) => graph.invoke(input, config));
    result = done.result;
    if (done.run.status !== "paused") break;
    input = new Command({ resume: "yes" });
  }
}
const finished = await runs.get(run.id);
process.stdout.write(`events ${events}\n`);
process.stdout.write(`${JSON.stringify({ result, status: finished.status })}\n`);
await close();
