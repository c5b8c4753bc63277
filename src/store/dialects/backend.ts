import type { Kysely } from "kysely";
import type { KernelDatabase } from "../schema.js";
import type { NativeHandle, StoreCapabilities, StoreDialectName, StoreLocation } from "../types.js";
import type { SchemaObject, SchemaSnapshot } from "./schema-snapshot.js";

/**
 * What the store needs from a database engine, behind one small interface per dialect
 * (`dialects/sqlite`, `dialects/postgres`). The rest of `src/store` talks only to this.
 */
export interface StoreBackend {
  readonly name: StoreDialectName;
  readonly capabilities: StoreCapabilities;
  readonly location: StoreLocation;
  readonly kysely: Kysely<KernelDatabase>;
  readonly native: NativeHandle;
  /**
   * Runs a multi-statement SQL script on `db` (a transaction or a pinned connection). Parameters
   * are not supported: scripts are migrations.
   */
  executeScript(db: Kysely<KernelDatabase>, script: string): Promise<void>;
  /** The kernel schema version kept outside the ledger (`PRAGMA user_version` or equivalent). */
  readUserVersion(db: Kysely<KernelDatabase>): Promise<number>;
  writeUserVersion(db: Kysely<KernelDatabase>, version: number): Promise<void>;
  /**
   * Runs `fn` holding the migration lock for the whole pass, so concurrent starters take turns
   * and later ones find nothing to do: on Postgres an advisory lock on one pinned connection; on
   * SQLite an EXCLUSIVE transaction on the sidecar file `<db>-migrate-lock` (SQLite has no
   * advisory lock; `BEGIN IMMEDIATE` per migration alone would let two starters interleave).
   */
  withMigrationLock<T>(fn: (db: Kysely<KernelDatabase>) => Promise<T>): Promise<T>;
  /** Tables, columns, indexes and constraints as the engine reports them. */
  introspect(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot>;
  /**
   * Every schema object of the database as text (the engine's own definitions), for before/after
   * comparisons: `sqlite_master` on SQLite, the catalog on Postgres.
   */
  schemaObjects(db: Kysely<KernelDatabase>): Promise<SchemaObject[]>;
  tableExists(db: Kysely<KernelDatabase>, table: string): Promise<boolean>;
  /** The names of the tables and views an unqualified name can reach. */
  relationNames(db: Kysely<KernelDatabase>): Promise<string[]>;
  close(): Promise<void>;
}
