import { KeelError } from "../../core/index.js";
import { DurableSaver, type DurableSaverOptions } from "../durable/durable-saver.js";
import { OpeningRunner, openSaverStore } from "../durable/opening-runner.js";
import type { SqlRunner } from "../durable/sql-runner.js";
import { type PostgresPool, PostgresRunner } from "./postgres-runner.js";

/** Where a `PostgresSaver` writes: an open store, or a pg pool you manage. */
export interface PostgresSaverOptions extends DurableSaverOptions {
  /** A pg pool on a database migrated by the kernel store (which includes `002_checkpoints`). */
  pool: PostgresPool;
}

/** The part of a kernel `Store` the saver needs (see `src/store`). */
export interface PostgresStoreLike {
  readonly native:
    | { readonly dialect: "postgres"; readonly pool: PostgresPool }
    | { readonly dialect: "sqlite" };
}

/**
 * A durable checkpoint saver on Postgres: one statement (one round trip, one transaction) per
 * step, values stored per channel version, runs resumable from any machine.
 *
 * @example
 * const store = await openStore({ db: process.env.KEEL_DATABASE_URL });
 * const graph = builder.compile({ checkpointer: PostgresSaver.fromStore(store) });
 * await graph.invoke(input, { configurable: { thread_id: "t1" } });
 */
export class PostgresSaver extends DurableSaver {
  constructor(options: PostgresSaverOptions);
  /** @internal a saver on a database being opened (`fromConnString`). */
  constructor(options: DurableSaverOptions, runner: SqlRunner);
  constructor(options: PostgresSaverOptions | DurableSaverOptions, runner?: SqlRunner) {
    super(runner ?? new PostgresRunner((options as PostgresSaverOptions).pool), options);
  }

  /**
   * A saver on a Postgres database, as LangGraph users write it: opens the kernel store at
   * `url` and migrates it (in the background: every call waits for it; `setup()` awaits it and
   * reports a failure). `close()` closes the store.
   *
   * @example
   * const checkpointer = PostgresSaver.fromConnString("postgres://user:pw@localhost:5432/app");
   * await checkpointer.setup();
   * const graph = builder.compile({ checkpointer });
   */
  static fromConnString(
    url: string,
    options: DurableSaverOptions & { autoMigrate?: boolean } = {},
  ): PostgresSaver {
    const opening = openSaverStore("postgres", url, options.autoMigrate ?? true);
    const saver = new PostgresSaver(
      options,
      new OpeningRunner(
        "postgres",
        opening.then(
          (store) => new PostgresRunner((store.native as { readonly pool: PostgresPool }).pool),
        ),
      ),
    );
    saver.storeOpening = opening;
    return saver;
  }

  /** A saver on an open Postgres store. */
  static fromStore(store: PostgresStoreLike, options: DurableSaverOptions = {}): PostgresSaver {
    if (store.native.dialect !== "postgres") {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "PostgresSaver.fromStore needs a Postgres store; this one is SQLite.",
        {
          hint: "Use SqliteSaver.fromStore(store) for a SQLite store.",
        },
      );
    }
    return new PostgresSaver({ ...options, pool: store.native.pool });
  }
}
