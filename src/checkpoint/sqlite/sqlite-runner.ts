import type BetterSqlite3 from "better-sqlite3";
import {
  BLOB_COLUMNS,
  CHECK_THREAD_LEASE,
  CHECKPOINT_COLUMNS,
  THREAD_TOUCH_INTERVAL_MS,
  UPSERT_THREAD,
  WRITE_COLUMNS,
  WRITE_CONFLICT,
} from "../durable/commit-sql.js";
import type { CommitBatch, ThreadBatch } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";

/** The subset of better-sqlite3's Database the saver uses. */
export type SqliteDatabase = Pick<BetterSqlite3.Database, "prepare" | "transaction">;

/**
 * `SqlRunner` on better-sqlite3: prepared statements cached by text, and a commit that is one
 * `BEGIN IMMEDIATE … COMMIT` for the whole batch.
 */
export class SqliteRunner implements SqlRunner {
  readonly dialect = "sqlite" as const;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  /** When this runner last wrote each thread's row (updated_at), to refresh it at most once a second. */
  private readonly touched = new Map<string, number>();
  private readonly commitAll: (batch: CommitBatch) => string[];

  constructor(private readonly database: SqliteDatabase) {
    const commitAll = database.transaction((batch: CommitBatch) => {
      const leased: string[] = [];
      for (const thread of batch.threads) {
        if (!this.commitThread(thread, batch)) leased.push(thread.threadId);
      }
      return leased;
    });
    this.commitAll = (batch) => commitAll.immediate(batch);
  }

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.statement(sql).all(...params) as T[];
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.statement(sql).run(...params).changes;
  }

  async commit(batch: CommitBatch): Promise<string[]> {
    return this.commitAll(batch);
  }

  /** Writes one thread's rows; false (and nothing written) when another owner holds its lease. */
  private commitThread(thread: ThreadBatch, batch: CommitBatch): boolean {
    const last = this.touched.get(thread.threadId);
    const fresh = last !== undefined && batch.now - last < THREAD_TOUCH_INTERVAL_MS;
    // A thread deleted since it was touched has no row: the upsert recreates it.
    const allowed =
      (fresh
        ? this.statement(CHECK_THREAD_LEASE).get(thread.threadId, batch.ownerId, batch.now)
        : undefined) ??
      this.statement(UPSERT_THREAD).get(
        thread.threadId,
        batch.now,
        batch.now,
        batch.ownerId,
        batch.now,
      );
    if (allowed === undefined) return false;
    if (!fresh) {
      if (this.touched.size > 4096) this.touched.clear();
      this.touched.set(thread.threadId, batch.now);
    }
    const insertWrite = this.statement(
      `INSERT INTO state_checkpoint_writes (${WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${WRITE_CONFLICT}`,
    );
    for (const w of thread.writes) {
      insertWrite.run(
        w.threadId,
        w.checkpointNs,
        w.checkpointId,
        w.taskId,
        w.idx,
        w.taskPath,
        w.channel,
        w.valueJson,
        w.valueHash,
      );
    }
    const insertBlob = this.statement(
      `INSERT INTO state_checkpoint_blobs (${BLOB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const b of thread.blobs) {
      insertBlob.run(
        b.threadId,
        b.checkpointNs,
        b.channel,
        b.seq,
        b.version,
        b.encoding,
        b.baseSeq,
        b.chainCount,
        b.valueJson,
        b.valueHash,
      );
    }
    const insertCheckpoint = this.statement(
      `INSERT INTO state_checkpoints (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of thread.checkpoints) {
      insertCheckpoint.run(
        c.threadId,
        c.checkpointNs,
        c.id,
        c.seq,
        c.parentId,
        c.formatVersion,
        c.step,
        c.source,
        c.checkpointJson,
        c.channelSeqsJson,
        c.metadataJson,
        c.createdAt,
      );
    }
    return true;
  }

  private statement(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
