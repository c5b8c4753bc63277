import type BetterSqlite3 from "better-sqlite3";
import { noteSqliteWrites } from "../../store/index.js";
import {
  BLOB_COLUMNS,
  blobValues,
  CHECK_THREAD_LEASE,
  CHECKPOINT_COLUMNS,
  checkpointValues,
  THREAD_TOUCH_INTERVAL_MS,
  UPSERT_THREAD,
  WRITE_COLUMNS,
  WRITE_CONFLICT,
  writeValues,
} from "../durable/commit-sql.js";
import type { CommitBatch, NewCheckpointRow, ThreadBatch } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";

export const INSERT_WRITE = `INSERT INTO state_checkpoint_writes (${WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${WRITE_CONFLICT}`;
export const INSERT_BLOB = `INSERT INTO state_checkpoint_blobs (${BLOB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
export const INSERT_CHECKPOINT = `INSERT INTO state_checkpoints (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

// The checkpoint row, written only when the thread's lease allows (CHECK_THREAD_LEASE).
const INSERT_CHECKPOINT_IF_LEASED = `INSERT INTO state_checkpoints (${CHECKPOINT_COLUMNS})
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (${CHECK_THREAD_LEASE})`;

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
  /** A chain step's statement (`commitStep`), prepared at the first. */
  private insertIfLeased: BetterSqlite3.Statement | undefined;
  /** Commits so far: every 128th tells the store's background checkpointer (`noteSqliteWrites`). */
  private commits = 0;

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

  async atomic(
    statements: ReadonlyArray<{ sql: string; params: readonly unknown[] }>,
  ): Promise<number[]> {
    return this.database
      .transaction(() =>
        statements.map(
          (statement) => this.statement(statement.sql).run(...statement.params).changes,
        ),
      )
      .immediate();
  }

  commit(batch: CommitBatch): string[] {
    // A run whose steps never wait on I/O gives the checkpointer's timer no turn of the loop.
    if (++this.commits % 128 === 0) noteSqliteWrites(this.database);
    const only = batch.threads.length === 1 ? batch.threads[0] : undefined;
    if (only !== undefined && this.commitStep(only, batch)) return [];
    return this.commitAll(batch);
  }

  /**
   * A chain step (one checkpoint row, nothing else, on a thread touched less than a second ago)
   * as one autocommitted statement that checks the lease itself: a write statement takes the
   * write lock when it starts, as BEGIN IMMEDIATE does. False when it wrote nothing (the lease
   * refused it, or the thread row is gone): the transaction then gives the answer.
   */
  private commitStep(thread: ThreadBatch, batch: CommitBatch): boolean {
    const c = thread.checkpoints[0];
    if (
      c === undefined ||
      thread.checkpoints.length !== 1 ||
      thread.writes.length > 0 ||
      thread.blobs.length > 0 ||
      !this.fresh(thread.threadId, batch.now)
    )
      return false;
    return this.insertLeased(c, thread, batch);
  }

  /** True when this runner refreshed the thread's `updated_at` less than a second ago. */
  private fresh(threadId: string, now: number): boolean {
    const last = this.touched.get(threadId);
    return last !== undefined && now - last < THREAD_TOUCH_INTERVAL_MS;
  }

  /** Writes one thread's rows; false (and nothing written) when another owner holds its lease. */
  private commitThread(thread: ThreadBatch, batch: CommitBatch): boolean {
    const fresh = this.fresh(thread.threadId, batch.now);
    const first = thread.checkpoints[0];
    // On a thread touched less than a second ago, the first checkpoint's insert checks the lease
    // itself (one statement a step instead of a lease query and an insert). Written first: the
    // transaction holds the thread's other rows with it either way.
    const checked = fresh && first !== undefined && this.insertLeased(first, thread, batch);
    if (!checked) {
      // A thread deleted since it was touched has no row: the upsert recreates it.
      const allowed =
        (fresh && first === undefined
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
    }
    for (const w of thread.writes) {
      this.statement(INSERT_WRITE).run(w.threadId, ...writeValues(w));
    }
    for (const b of thread.blobs) {
      this.statement(INSERT_BLOB).run(b.threadId, ...blobValues(b));
    }
    const checkpoints = thread.checkpoints;
    for (let i = checked ? 1 : 0; i < checkpoints.length; i++) {
      const c = checkpoints[i]!;
      this.statement(INSERT_CHECKPOINT).run(c.threadId, ...checkpointValues(c));
    }
    return true;
  }

  /** Inserts `c` if the thread's lease allows it (false: nothing written, the upsert decides). */
  private insertLeased(c: NewCheckpointRow, thread: ThreadBatch, batch: CommitBatch): boolean {
    this.insertIfLeased ??= this.statement(INSERT_CHECKPOINT_IF_LEASED);
    // The values as arguments, in CHECKPOINT_COLUMNS order (`pushCheckpointValues`), not
    // `checkpointValues(c)` spread into the call or bound as an array: a chain step's one
    // statement binds ~2,000 instructions less (callgrind), 1.66 µs an insert against 1.83
    // spread and 1.96 as an array (session 15, a scratch loop of this statement's shape).
    return (
      this.insertIfLeased.run(
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
        c.belowLatest,
        thread.threadId,
        batch.ownerId,
        batch.now,
      ).changes === 1
    );
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
