import type { CommitBatch } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";

/**
 * A runner on a database still being opened (`fromConnString` opens and migrates the kernel
 * store in the background, as LangGraph's savers are built synchronously): each call waits for
 * the open, and an open that failed fails every call with its error.
 */
export class OpeningRunner implements SqlRunner {
  constructor(
    readonly dialect: "sqlite" | "postgres",
    private readonly opening: Promise<SqlRunner>,
  ) {
    // Reported by the first call that needs the database, not as an unhandled rejection.
    opening.catch(() => {});
  }

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return (await this.opening).all<T>(sql, params);
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return (await this.opening).run(sql, params);
  }

  async commit(batch: CommitBatch): Promise<string[]> {
    return (await this.opening).commit(batch);
  }

  async atomic(
    statements: ReadonlyArray<{ sql: string; params: readonly unknown[] }>,
  ): Promise<number[]> {
    return (await this.opening).atomic(statements);
  }
}
