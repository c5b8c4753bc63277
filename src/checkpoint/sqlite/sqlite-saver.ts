import { KeelError } from "../../core/index.js";
import { DurableSaver, type DurableSaverOptions } from "../durable/durable-saver.js";
import { OpeningRunner, openSaverStore } from "../durable/opening-runner.js";
import type { SqlRunner } from "../durable/sql-runner.js";
import { type SqliteDatabase, SqliteRunner } from "./sqlite-runner.js";

/** Where a `SqliteSaver` writes: an open store, or a better-sqlite3 database you manage. */
export interface SqliteSaverOptions extends DurableSaverOptions {
  /**
   * A better-sqlite3 database whose schema is migrated (the kernel store's migrations, which
   * include `002_checkpoints`). `SqliteSaver.fromStore(store)` passes the store's.
   */
  database: SqliteDatabase;
}

/** The part of a kernel `Store` the saver needs (see `src/store`). */
export interface SqliteStoreLike {
  readonly native:
    | { readonly dialect: "sqlite"; readonly database: SqliteDatabase }
    | { readonly dialect: "postgres" };
}

/**
 * A durable checkpoint saver on SQLite: survives `kill -9` at any instant (WAL, one transaction
 * per step), stores only what changed, lists threads fast, prunes safely.
 *
 * @example
 * const store = await openStore({ db: "./.keel/keel.db" });
 * const graph = builder.compile({ checkpointer: SqliteSaver.fromStore(store) });
 * await graph.invoke(input, { configurable: { thread_id: "t1" } });
 */
export class SqliteSaver extends DurableSaver {
  constructor(options: SqliteSaverOptions);
  /** @internal a saver on a database being opened (`fromConnString`). */
  constructor(options: DurableSaverOptions, runner: SqlRunner);
  constructor(options: SqliteSaverOptions | DurableSaverOptions, runner?: SqlRunner) {
    super(runner ?? new SqliteRunner((options as SqliteSaverOptions).database), options);
  }

  /**
   * A saver on a SQLite file, as LangGraph users write it: opens the kernel store at
   * `path` and migrates it (in the background: every call waits for it; `setup()` awaits it and
   * reports a failure). `close()` closes the store.
   *
   * @example
   * const checkpointer = SqliteSaver.fromConnString("./checkpoints.db");
   * await checkpointer.setup();
   * const graph = builder.compile({ checkpointer });
   */
  static fromConnString(
    path: string,
    options: DurableSaverOptions & { autoMigrate?: boolean } = {},
  ): SqliteSaver {
    const opening = openSaverStore("sqlite", path, options.autoMigrate ?? true);
    const saver = new SqliteSaver(
      options,
      new OpeningRunner(
        "sqlite",
        opening.then(
          (store) =>
            new SqliteRunner((store.native as { readonly database: SqliteDatabase }).database),
        ),
      ),
    );
    saver.storeOpening = opening;
    return saver;
  }

  /** A saver on an open SQLite store. */
  static fromStore(store: SqliteStoreLike, options: DurableSaverOptions = {}): SqliteSaver {
    if (store.native.dialect !== "sqlite") {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "SqliteSaver.fromStore needs a SQLite store; this one is Postgres.",
        {
          hint: "Use PostgresSaver.fromStore(store) for a Postgres store.",
        },
      );
    }
    return new SqliteSaver({ ...options, database: store.native.database });
  }
}
