import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { KeelError } from "../../../core/index.js";
import { assertNotTooNew } from "../../migrate/too-new.js";
import type { KernelDatabase } from "../../schema.js";
import type { SqliteSynchronous, StoreCapabilities, StoreLocation } from "../../types.js";
import type { StoreBackend } from "../backend.js";
import type { SchemaObject, SchemaSnapshot } from "../schema-snapshot.js";
import { type SqliteDriver, SqliteKyselyDialect } from "./sqlite-driver.js";
import { sqliteFileError } from "./sqlite-errors.js";
import { checkSqliteFile } from "./sqlite-file-check.js";
import { introspectSqlite } from "./sqlite-introspector.js";
import { sqliteSchemaObjects } from "./sqlite-schema-objects.js";
import { type WalCheckpointer, walCheckpointerFor } from "./wal-checkpointer.js";

const CAPABILITIES: StoreCapabilities = Object.freeze({
  supportsSkipLocked: false,
  supportsAdvisoryLocks: false,
  supportsTransactionalDdl: true,
  supportsMultipleConnections: false,
  supportsReturning: true,
  supportsNativeJson: false,
});

/** The sidecar file whose lock serialises migrating processes (kept; removed with the database). */
export const MIGRATION_LOCK_SUFFIX = "-migrate-lock";
/** How long a starter waits for another one's migrations before giving up (STORE_BUSY). */
const MIGRATION_LOCK_WAIT_MS = 120_000;
/**
 * WAL frames (pages, ~4 KiB each) after which a commit checkpoints the log into the database
 * (SQLite's default: 1,000). A checkpoint fsyncs the log and the database and copies every page
 * changed since the last one, inside the commit that triggers it: at 1,000 frames a stream of
 * small commits (a ledgered tool call writes ~25 frames) paid it every few dozen commits. At
 * 10,000 the log grows to ~40 MiB before it is copied back, each page is copied once for more
 * of its changes, and the two fsyncs are spread over ten times as many commits (bench/runtime).
 * Under `synchronous=FULL` every commit fsyncs the log, and while the log is growing each fsync
 * also has to save the file's new size: a 40 MiB log is growing for a long time (and again after
 * every restart, as the last close deletes it), so FULL keeps SQLite's 1,000 and reuses a
 * ~4 MiB log in place (bench/checkpoint: ~35% less per durable step on a fresh file).
 */
const WAL_AUTOCHECKPOINT_FRAMES = { NORMAL: 10_000, FULL: 1_000 } as const;

export interface SqliteOpenOptions {
  synchronous: SqliteSynchronous;
  busyTimeoutMs: number;
  /**
   * The newest kernel schema version this code knows: a file at a higher user_version is refused
   * (`STORE_TOO_NEW`) before the journal-mode switch rewrites its header.
   */
  latestVersion?: number;
  /**
   * Open without changing anything (dry runs, status, doctor): a read-only connection, no
   * journal-mode switch, no folder created; an absent file reads as an empty database.
   */
  readOnly?: boolean;
  /**
   * Copy the log back into the database from a worker thread where the connection's settings
   * call for it (default true; `walCheckpointerFor`: a file under `synchronous=NORMAL`), so that
   * the commit crossing the autocheckpoint copies only the rest.
   */
  backgroundCheckpoint?: boolean;
}

/**
 * Opens (creating if absent) a SQLite database: the file is checked before SQLite sees it, then
 * WAL (checkpointed every `WAL_AUTOCHECKPOINT_FRAMES` of its `synchronous`), foreign keys, a busy timeout and
 * `synchronous` are set on the one connection.
 */
export function openSqliteBackend(
  location: Extract<StoreLocation, { dialect: "sqlite" }>,
  options: SqliteOpenOptions,
): StoreBackend {
  const { path } = location;
  const readOnly = options.readOnly === true;
  // Read-only and absent: an empty in-memory stand-in, so that nothing is created on disk.
  const inMemory = path === ":memory:" || (readOnly && !existsSync(path));
  // A read-only connection to a WAL database leaves -wal and -shm behind unless cleaned up.
  const leftovers =
    readOnly && !inMemory && !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  let database: Database.Database;
  try {
    if (!inMemory) checkSqliteFile(path);
    if (!inMemory && !readOnly) mkdirSync(dirname(path), { recursive: true });
    database = inMemory
      ? new Database(":memory:")
      : new Database(path, {
          timeout: options.busyTimeoutMs,
          ...(readOnly ? { readonly: true, fileMustExist: true } : {}),
        });
  } catch (error) {
    throw toOpenError(error, path);
  }
  try {
    // Reading the schema first surfaces a corrupt first page before any pragma writes the header.
    database.prepare("SELECT count(*) FROM sqlite_master").get();
    assertKeelOrEmpty(database, path);
    if (!readOnly && options.latestVersion !== undefined) {
      const version = Number(database.pragma("user_version", { simple: true }));
      assertNotTooNew(version, options.latestVersion, path);
    }
    if (!inMemory && !readOnly) {
      database.pragma("journal_mode = WAL");
      database.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_FRAMES[options.synchronous]}`);
    }
    database.pragma("foreign_keys = ON");
    database.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs)}`);
    database.pragma(`synchronous = ${options.synchronous}`);
  } catch (error) {
    database.close();
    // A read-only connection that failed (a corrupt file) must not leave its -wal/-shm behind.
    if (leftovers) removeReadOnlyLeftovers(path);
    throw toOpenError(error, path);
  }
  const dialect = new SqliteKyselyDialect(database);
  const kysely = new Kysely<KernelDatabase>({ dialect });
  const checkpointer =
    options.backgroundCheckpoint !== false ? walCheckpointerFor(database) : undefined;
  return new SqliteBackend(location, database, kysely, dialect.driver, leftovers, checkpointer);
}

/**
 * Removes the -wal and -shm a read-only connection created: SQLite itself deletes them when the
 * last connection that read the database closes, which a read-only one cannot do, so one plain
 * connection reads and closes. It leaves them if another connection is still open, and writes
 * nothing to the database file (its log is empty).
 */
function removeReadOnlyLeftovers(path: string): void {
  try {
    const cleaner = new Database(path, { fileMustExist: true });
    try {
      cleaner.prepare("SELECT count(*) FROM sqlite_master").get();
    } finally {
      cleaner.close();
    }
  } catch {
    // A read-only folder: nothing could have been created there either.
  }
  // A database file nobody may write (0444, immutable): the cleaner's connection was read-only
  // too and could not delete them. Its log is empty and no process can write the file, so no
  // connection depends on them: remove them here.
  if (existsSync(`${path}-wal`) && !writable(path) && statSync(`${path}-wal`).size === 0) {
    for (const suffix of ["-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    // access() ignores the immutable attribute for root; opening for writing does not.
    closeSync(openSync(path, "r+"));
    return true;
  } catch {
    return false;
  }
}

/**
 * A SQLite file with tables but no Keel ledger belongs to something else: refuse it before any
 * pragma rewrites its header.
 */
function assertKeelOrEmpty(database: Database.Database, path: string): void {
  if (database.pragma("user_version", { simple: true }) !== 0) return;
  const tables = database
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  if (tables.length === 0 || tables.includes("config_schema_versions")) return;
  throw new KeelError(
    "STORE_NOT_A_DATABASE",
    `${path} is a SQLite database but not a Keel one (it has tables ${tables.slice(0, 5).join(", ")} and no migration ledger).`,
    {
      details: { path, tables },
      hint: "Point --db at a Keel database or a new file; Keel did not modify this one.",
    },
  );
}

function toOpenError(error: unknown, path: string): KeelError {
  if (error instanceof KeelError) return error;
  return (
    sqliteFileError(error, path) ??
    new KeelError(
      "STORE_OPEN_FAILED",
      `Cannot open the SQLite database at ${path}: ${String(error)}`,
      {
        cause: error,
        details: { path },
      },
    )
  );
}

class SqliteBackend implements StoreBackend {
  readonly name = "sqlite" as const;
  readonly capabilities = CAPABILITIES;
  readonly native;
  #closed = false;

  constructor(
    readonly location: StoreLocation,
    readonly database: Database.Database,
    readonly kysely: Kysely<KernelDatabase>,
    readonly driver: SqliteDriver,
    /** Read-only open that created -wal/-shm companions: remove them on close. */
    readonly removeLeftovers: boolean,
    /** The log's background checkpointer (file databases opened for writing). */
    readonly walCheckpointer: WalCheckpointer | undefined,
  ) {
    this.native = { dialect: "sqlite" as const, database };
  }

  async executeScript(_db: Kysely<KernelDatabase>, script: string): Promise<void> {
    // One connection: the script runs inside whatever transaction `_db` holds on it.
    this.database.exec(script);
    this.driver.clearStatementCache();
  }

  async readUserVersion(db: Kysely<KernelDatabase>): Promise<number> {
    const result = await sql<{ user_version: number }>`PRAGMA user_version`.execute(db);
    return Number(result.rows[0]?.user_version ?? 0);
  }

  async writeUserVersion(db: Kysely<KernelDatabase>, version: number): Promise<void> {
    await sql.raw(`PRAGMA user_version = ${Math.trunc(version)}`).execute(db);
  }

  async withMigrationLock<T>(fn: (db: Kysely<KernelDatabase>) => Promise<T>): Promise<T> {
    // Each migration runs under BEGIN IMMEDIATE and re-reads the ledger, so nothing is applied
    // twice; but between two files another starter could take over, and then two processes
    // migrate. SQLite has no advisory lock, so a sidecar database plays one: an EXCLUSIVE
    // transaction on it for the whole pass (released by SQLite itself if the process dies).
    const path = this.location.dialect === "sqlite" ? this.location.path : ":memory:";
    if (path === ":memory:") return fn(this.kysely);
    const lock = new Database(`${path}${MIGRATION_LOCK_SUFFIX}`, {
      timeout: MIGRATION_LOCK_WAIT_MS,
    });
    try {
      lock.exec("BEGIN EXCLUSIVE");
      try {
        return await fn(this.kysely);
      } finally {
        lock.exec("ROLLBACK");
      }
    } finally {
      lock.close();
    }
  }

  introspect(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot> {
    return introspectSqlite(db);
  }

  schemaObjects(db: Kysely<KernelDatabase>): Promise<SchemaObject[]> {
    return sqliteSchemaObjects(db);
  }

  async tableExists(db: Kysely<KernelDatabase>, table: string): Promise<boolean> {
    const result = await sql<{ n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(db);
    return Number(result.rows[0]?.n ?? 0) > 0;
  }

  async relationNames(db: Kysely<KernelDatabase>): Promise<string[]> {
    const result = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`.execute(db);
    return result.rows.map((row) => row.name);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Before the connection: as the last one to close, it then checkpoints and removes the log.
    await this.walCheckpointer?.close();
    await this.kysely.destroy();
    if (this.removeLeftovers && this.location.dialect === "sqlite") {
      removeReadOnlyLeftovers(this.location.path);
    }
  }
}
