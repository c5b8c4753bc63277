import { KeelError } from "../../core/index.js";
import { openStore, type Store } from "../../store/index.js";
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

/**
 * Opens and migrates the kernel store at `target` for `SqliteSaver.fromConnString` or
 * `PostgresSaver.fromConnString`, refusing a target of the other dialect (a postgres URL given
 * to the SQLite saver is refused before anything connects to it).
 */
export function openSaverStore(
  dialect: "sqlite" | "postgres",
  target: string,
  autoMigrate: boolean,
): Promise<Store> {
  const saver = dialect === "sqlite" ? "SqliteSaver" : "PostgresSaver";
  const other = dialect === "sqlite" ? "PostgresSaver" : "SqliteSaver";
  const refused = () =>
    new KeelError(
      "INVALID_ARGUMENT",
      `${saver}.fromConnString needs ${dialect === "sqlite" ? "a SQLite path" : "a postgres:// URL"}, not ${JSON.stringify(target)}.`,
      { hint: `Use ${other}.fromConnString for the other database.` },
    );
  if (dialect === "sqlite" && /^postgres(ql)?:\/\//i.test(target)) {
    return Promise.reject(refused());
  }
  return openStore({ db: target, backupBeforeMigrate: false, autoMigrate }).then((store) => {
    if (store.native.dialect === dialect) return store;
    void store.close();
    throw refused();
  });
}
