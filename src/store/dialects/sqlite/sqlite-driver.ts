import type BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";

/** How many prepared statements a connection keeps; the hot statements of a process fit easily. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * One better-sqlite3 connection as Kysely sees it, with a prepared-statement cache: preparing
 * the same SQL on every call is most of the cost of a small insert.
 */
class SqliteConnection implements DatabaseConnection {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Forgets cached statements (after DDL changed the schema they were prepared against). */
  clearStatements(): void {
    this.#statements.clear();
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#prepare(compiledQuery.sql);
    const parameters = compiledQuery.parameters as unknown[];
    if (statement.reader) {
      return Promise.resolve({ rows: statement.all(...parameters) as R[] });
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return Promise.resolve({
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    });
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.#prepare(compiledQuery.sql);
    for (const row of statement.iterate(...(compiledQuery.parameters as unknown[]))) {
      yield { rows: [row as R] };
    }
  }
}

/**
 * Kysely driver for one better-sqlite3 database: a single connection handed out under a mutex
 * (SQLite has one writer), and `BEGIN IMMEDIATE` so a transaction takes the write lock up front
 * instead of failing with SQLITE_BUSY when it first writes.
 */
export class SqliteDriver implements Driver {
  readonly #connection: SqliteConnection;
  readonly #db: BetterSqlite3.Database;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    this.#connection = new SqliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("BEGIN IMMEDIATE"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("COMMIT"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed statement may already have ended the transaction (SQLite rolls back on some errors).
    if (this.#db.inTransaction) await connection.executeQuery(CompiledQuery.raw("ROLLBACK"));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`SAVEPOINT "${name}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`ROLLBACK TO SAVEPOINT "${name}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`RELEASE SAVEPOINT "${name}"`));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  /** Drops cached statements; called after a migration changed the schema. */
  clearStatementCache(): void {
    this.#connection.clearStatements();
  }

  async destroy(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/** Kysely dialect over an already-opened better-sqlite3 database. */
export class SqliteKyselyDialect implements Dialect {
  readonly driver: SqliteDriver;

  constructor(db: BetterSqlite3.Database) {
    this.driver = new SqliteDriver(db);
  }

  createDriver(): Driver {
    return this.driver;
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own Dialect signature takes Kysely<any>.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
