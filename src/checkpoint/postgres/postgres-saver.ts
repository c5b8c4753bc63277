import { KeelError } from "../../core/index.js";
import { DurableSaver, type DurableSaverOptions } from "../durable/durable-saver.js";
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
  constructor(options: PostgresSaverOptions) {
    super(new PostgresRunner(options.pool), options);
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
