/**
 * What one commit costs with nothing else around it: a prepared INSERT of one row the size of a
 * Keel chain step's row, committed on its own, on the same kind of database the savers use. A
 * durable step in `sync` mode cannot cost less than this; the bench prints it next to the savers
 * so the distance to the floor is visible.
 */
import type Database from "better-sqlite3";
import type pg from "pg";
import {
  type WalCheckpointer,
  walCheckpointerFor,
} from "../../src/store/dialects/sqlite/wal-checkpointer.js";
import { noteSqliteWrites } from "../../src/store/index.js";
import { type Figures, measure } from "../lib/report.js";

/** A row shaped like a Keel chain step (same columns, about the same text lengths). */
function stepRow(threadId: string, seq: number): unknown[] {
  return [
    threadId,
    "",
    `01a2-floor-${String(seq).padStart(12, "0")}-0000-000000000000`,
    seq,
    "01a2-floor-parent-0000-0000-000000000000",
    1,
    seq,
    "loop",
    '{"v":1,"ts":"2026-01-01T00:00:00.000Z","l":2,"h":"0123456789abcdef"}',
    `{"c":{"count":[${seq}.374526407701,0,"${seq}"],"label":[1.8398423354704838,0,"\\"x\\""]},"s":{"n1":{"branch:to:n1":1.2308301519091027}},"w":[["88adf77a-0751-6116-5425-bb77007fa2e7",0,"count","${seq}"]]}`,
    `{"source":"loop","step":${seq},"parents":{},"writes":{"n1":{"count":${seq}}},"thread_id":"${threadId}"}`,
    Date.now(),
  ];
}

const COLUMNS =
  "thread_id, checkpoint_ns, id, seq, parent_id, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at";

/**
 * Gives the bare database the settings of Keel's store that decide what a commit costs: journal
 * mode, `synchronous` and `wal_autocheckpoint` (the store keeps 10,000 frames at NORMAL, SQLite's
 * default is 1,000: a floor at the default checkpoints — copies the log into the file and fsyncs
 * it — ten times as often as Keel's store, which made it 0.5–6 µs a commit dearer than Keel's
 * commits pay) — and, as the store does under NORMAL, a worker thread that copies the log back
 * between commits (`WalCheckpointer`), which the caller closes before the database.
 */
export function sameSqliteSettings(
  bare: Database.Database,
  keel: Database.Database,
): WalCheckpointer | undefined {
  for (const name of ["journal_mode", "synchronous", "wal_autocheckpoint"])
    bare.pragma(`${name} = ${keel.pragma(name, { simple: true })}`);
  return walCheckpointerFor(bare);
}

/**
 * Microseconds per commit of `rows` single-row autocommitted inserts on SQLite, into a table of
 * the shape Keel's `state_checkpoints` has (migration 035): a rowid table with a unique index on
 * (thread, namespace, id), so a row writes the table's right edge and one index entry as Keel's
 * do. Left in the old WITHOUT ROWID shape, the floor would pay for pages Keel no longer writes
 * and flatter Keel's ratio to it.
 */
export function sqliteFloor(database: Database.Database, rows: number): Promise<Figures> {
  database.exec(`CREATE TABLE IF NOT EXISTS bench_floor (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL,
    parent_id TEXT, format_version INTEGER NOT NULL, step INTEGER NOT NULL, source TEXT NOT NULL,
    checkpoint_json TEXT NOT NULL, channel_seqs_json TEXT NOT NULL, metadata_json TEXT NOT NULL,
    created_at INTEGER NOT NULL);
    CREATE UNIQUE INDEX IF NOT EXISTS ix_bench_floor_thread_id_checkpoint_ns_id
      ON bench_floor (thread_id, checkpoint_ns, id)`);
  const insert = database.prepare(
    `INSERT INTO bench_floor (${COLUMNS}) VALUES (${"?, ".repeat(11)}?)`,
  );
  const threadId = `floor-${Math.random()}`;
  return measure(rows, () => {
    for (let seq = 0; seq < rows; seq++) insert.run(...stepRow(threadId, seq));
    // As Keel's SQLite runner does every 128 commits: its checkpointer starts once the log grows.
    noteSqliteWrites(database);
  });
}

/** Microseconds per commit of `rows` single-row inserts on Postgres (one round trip each). */
export async function postgresFloor(pool: pg.Pool, rows: number): Promise<Figures> {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_floor (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL,
    parent_id TEXT, format_version INTEGER NOT NULL, step INTEGER NOT NULL, source TEXT NOT NULL,
    checkpoint_json TEXT NOT NULL, channel_seqs_json TEXT NOT NULL, metadata_json TEXT NOT NULL,
    created_at BIGINT NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, id))`);
  const text = `INSERT INTO bench_floor (${COLUMNS}) VALUES (${Array.from({ length: 12 }, (_, i) => `$${i + 1}`).join(", ")})`;
  const threadId = `floor-${Math.random()}`;
  return measure(rows, async () => {
    for (let seq = 0; seq < rows; seq++)
      await pool.query({ name: "bench_floor_insert", text, values: stepRow(threadId, seq) });
  });
}
