import type BetterSqlite3 from "better-sqlite3";
import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";

/** The store's better-sqlite3 connection. */
export type SqliteHandle = BetterSqlite3.Database;

type Immediate = <T>(fn: () => T) => T;

const statements = new WeakMap<SqliteHandle, Map<string, BetterSqlite3.Statement>>();
const immediates = new WeakMap<SqliteHandle, Immediate>();

/** A prepared statement, cached per connection by its text (preparing is most of a small write). */
export function prepared(db: SqliteHandle, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/**
 * Runs `fn` (synchronous statements on `db`) as one `BEGIN IMMEDIATE … COMMIT`, without the
 * query builder. The connection is shared with Kysely, whose transactions span awaits: while
 * one is open, joining it would make this write commit or roll back with someone else's work,
 * so we wait for the query builder's connection first. Otherwise nothing can interleave with a
 * synchronous transaction, and it runs at once.
 */
export function sqliteWrite<T>(store: Store, db: SqliteHandle, fn: () => T): Promise<T> {
  // Not an async function: the common case settles in one step.
  if (sqliteIdle(db)) {
    try {
      return Promise.resolve(sqliteWriteNow(db, fn));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return store.kysely.connection().execute(async () => {
    if (db.inTransaction) {
      throw new KeelError(
        "INTERNAL",
        "The SQLite connection is inside a transaction nobody holds; refusing to join it.",
      );
    }
    return immediate(db)(fn);
  });
}

/** Whether no transaction is open on the connection: `sqliteWriteNow` may run (see `sqliteWrite`). */
export function sqliteIdle(db: SqliteHandle): boolean {
  return !db.inTransaction;
}

/**
 * `fn` as one `BEGIN IMMEDIATE … COMMIT` at once, its value returned (a throw rolls it back and
 * propagates): `sqliteWrite` without the promise, for a caller that checked `sqliteIdle` first.
 */
export function sqliteWriteNow<T>(db: SqliteHandle, fn: () => T): T {
  return immediate(db)(fn);
}

function immediate(db: SqliteHandle): Immediate {
  let run = immediates.get(db);
  if (!run) {
    const transaction = db.transaction((fn: () => unknown) => fn());
    run = (<T>(fn: () => T): T => transaction.immediate(fn) as T) as Immediate;
    immediates.set(db, run);
  }
  return run;
}
