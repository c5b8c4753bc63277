import type { CommitBatch } from "./rows.js";

/**
 * The little a durable saver needs from a database, so that everything except the hot commit
 * path is written once for both dialects. SQL uses `?` placeholders; the Postgres runner numbers
 * them. Every call of `all` and `run` is one autocommitted statement; `commit` and `atomic` are
 * the multi-statement transactions, which each dialect implements in its own file.
 */
export interface SqlRunner {
  readonly dialect: "sqlite" | "postgres";
  /** Rows of a query. */
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /**
   * Commits a batch atomically: thread rows (with the lease check), channel values, pending
   * writes and checkpoints. Resolves to the ids of threads whose lease belongs to another live
   * owner (nothing of those threads was written). A database whose driver is synchronous
   * (SQLite) returns the ids at once, so a step in `sync` mode awaits nothing.
   */
  commit(batch: CommitBatch): string[] | Promise<string[]>;
  /**
   * Runs data-changing statements (INSERT, UPDATE or DELETE, without RETURNING) all or none: one
   * transaction on SQLite, one statement of data-modifying CTEs on Postgres. Resolves to the rows
   * each changed.
   */
  atomic(statements: ReadonlyArray<{ sql: string; params: readonly unknown[] }>): Promise<number[]>;
}
