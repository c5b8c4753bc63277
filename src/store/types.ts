import type BetterSqlite3 from "better-sqlite3";
import type { Kysely, Transaction } from "kysely";
import type pg from "pg";
import type { PostgresTimeouts } from "./dialects/postgres/postgres-timeouts.js";
import type { MigrationReport } from "./migrate/types.js";
import type { KernelDatabase } from "./schema.js";

/** The two database engines Keel runs on. */
export type StoreDialectName = "sqlite" | "postgres";

/**
 * What a backend can do, as flags: callers ask, they never check the dialect by name for
 * behaviour (Kysely's adapter habit).
 */
export interface StoreCapabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` (atomic claims among many workers). */
  readonly supportsSkipLocked: boolean;
  /** Session and transaction advisory locks (`pg_advisory_lock`). */
  readonly supportsAdvisoryLocks: boolean;
  /** DDL rolls back with its transaction (both engines here: true). */
  readonly supportsTransactionalDdl: boolean;
  /** More than one connection may work at once (a pool); false means one writer, serialised. */
  readonly supportsMultipleConnections: boolean;
  /** `INSERT … RETURNING` / `UPDATE … RETURNING`. */
  readonly supportsReturning: boolean;
  /** Native `jsonb`/boolean types exist (Keel's kernel tables still use TEXT and 0/1 for portability). */
  readonly supportsNativeJson: boolean;
}

/** Where a store lives, after `--db` / environment / config file / scope resolution. */
export type StoreLocation =
  | {
      readonly dialect: "sqlite";
      /** Absolute path of the database file, or `:memory:`. */
      readonly path: string;
      /** The `.keel` directory backups go under (`<dir>/backups`). */
      readonly keelDir: string;
    }
  | {
      readonly dialect: "postgres";
      readonly url: string;
      /** The `.keel` directory of the scope (backups of a Postgres store are written here). */
      readonly keelDir: string;
    };

/** The driver objects underneath, for hot paths that must skip the query builder. */
export type NativeHandle =
  | { readonly dialect: "sqlite"; readonly database: BetterSqlite3.Database }
  | { readonly dialect: "postgres"; readonly pool: pg.Pool };

/** `PRAGMA synchronous` for SQLite: NORMAL (default, safe with WAL) or FULL (fsync each commit). */
export type SqliteSynchronous = "NORMAL" | "FULL";

/** Which database `openStore` opens. Exactly one of `path`, `url`, `location`, or a scope. */
export interface OpenStoreOptions {
  /** A SQLite file path, `:memory:`, or a `postgres://` URL (what `--db` accepts). */
  db?: string;
  /** An already-resolved location (see `resolveStoreLocation`). */
  location?: StoreLocation;
  /** Without `db`/`location`: the project (`./.keel/keel.db`, default) or global scope. */
  scope?: "project" | "global";
  /** Directory the project scope is relative to; defaults to `process.cwd()`. */
  cwd?: string;
  /**
   * Apply pending kernel migrations on open (default true, or the `auto_migrate` preference /
   * config-file setting when this is left undefined).
   */
  autoMigrate?: boolean;
  /**
   * Change nothing: a read-only connection (SQLite: no journal-mode switch, no folder or file
   * created, an absent file reads as empty; Postgres: read-only transactions). Implies
   * `autoMigrate: false`. For dry runs, `--status` and `keel doctor`.
   */
  readOnly?: boolean;
  /** Skip the pre-migrate backup on SQLite (`keel db migrate --no-backup`). */
  backupBeforeMigrate?: boolean;
  /** SQLite only: `PRAGMA synchronous` (default NORMAL). */
  synchronous?: SqliteSynchronous;
  /** SQLite only: milliseconds a writer waits for the lock before SQLITE_BUSY (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite only, `synchronous=NORMAL`: copy the write-ahead log back into the database from a
   * worker thread (default true), so that no commit stalls the event loop for a whole checkpoint
   * (docs/store.md). Under FULL the connection checkpoints in line as before.
   */
  backgroundCheckpoint?: boolean;
  /** Postgres only: pool size (default 10). */
  poolSize?: number;
  /**
   * Postgres only: statement, query, connection-wait and keepalive timeouts in ms (defaults
   * 60 s, 75 s, 10 s, 10 s; env `KEEL_PG_STATEMENT_TIMEOUT_MS`, `KEEL_PG_QUERY_TIMEOUT_MS`,
   * `KEEL_PG_CONNECT_TIMEOUT_MS`). Past them a call fails with STORE_UNAVAILABLE.
   */
  postgresTimeouts?: Partial<PostgresTimeouts>;
  /**
   * Where kernel migrations are read from (a folder per dialect holding `NNN_name.sql`).
   * Defaults to the bundled `src/store/migrations/<dialect>/`; tests point it elsewhere.
   */
  migrationsDir?: string;
  /** Receives human progress lines (migrations applied, backups written). */
  onProgress?: (message: string) => void;
}

/**
 * An open kernel database.
 *
 * @example
 * const store = await openStore({ db: "./.keel/keel.db" });
 * await store.kysely.insertInto("config_preferences")
 *   .values({ key: "theme", value_json: '"dark"', updated_at: Date.now() })
 *   .execute();
 * await store.close();
 */
export interface Store extends StoreCapabilities {
  /** Typed query builder over the kernel tables. */
  readonly kysely: Kysely<KernelDatabase>;
  readonly dialect: StoreDialectName;
  readonly capabilities: StoreCapabilities;
  readonly location: StoreLocation;
  /** The driver objects underneath (better-sqlite3 database or pg pool). */
  readonly native: NativeHandle;
  /** What `openStore` applied (empty when the database was already current). */
  readonly openReport: MigrationReport;
  /**
   * Runs `fn` in one transaction (on SQLite `BEGIN IMMEDIATE`, so a writer never fails on
   * upgrade); commits when it resolves, rolls back when it throws.
   */
  transaction<T>(fn: (tx: Transaction<KernelDatabase>) => Promise<T>): Promise<T>;
  /** Closes the connection or pool. Idempotent. */
  close(): Promise<void>;
}
