import type { CommitBatch } from "./rows.js";

/**
 * The little a durable saver needs from a database, so that everything except the hot commit
 * path is written once for both dialects. SQL uses `?` placeholders; the Postgres runner numbers
 * them. Every call is one autocommitted statement: the savers need no multi-statement
 * transaction outside `commit`, which each dialect implements in its own file.
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
}
