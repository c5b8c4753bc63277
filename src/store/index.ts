/**
 * `keel/store`: the kernel database (seed 004) on SQLite or Postgres, through Kysely.
 *
 * @example
 * import { openStore } from "keel/store";
 * const store = await openStore(); // ./.keel/keel.db, migrated
 * console.log(store.dialect, store.supportsSkipLocked);
 * await store.close();
 */

export { type BackupResult, backupStore } from "./backup/backup.js";
export { dumpPostgres, dumpSqlite } from "./backup/dump.js";
export { deleteSqliteDatabase, type ResetResult, resetStore } from "./backup/reset.js";
export { inspectBackup, type RestoreResult, restoreStore } from "./backup/restore.js";
export { loadPgDriver, pgDriver } from "./dialects/postgres/pg-driver.js";
export type {
  ColumnSnapshot,
  ConstraintSnapshot,
  ForeignKeySnapshot,
  IndexSnapshot,
  SchemaSnapshot,
  TableSnapshot,
} from "./dialects/schema-snapshot.js";
export { noteSqliteWrites } from "./dialects/sqlite/wal-checkpointer.js";
export { type DoctorCheck, type DoctorReport, runDoctor } from "./doctor/doctor.js";
export {
  DATABASE_FILE,
  describeLocation,
  findProjectDir,
  KEEL_DIR,
  locationOf,
  type ResolveLocationOptions,
  resolveStoreLocation,
} from "./location.js";
export { kernelMigrationStatus, type MigrateOptions, migrate } from "./migrate/migrate.js";
export { kernelMigrationsDir, loadMigrationFiles } from "./migrate/migration-files.js";
export type {
  KernelMigrationStatus,
  LedgerEntry,
  MigrationFile,
  MigrationReport,
  PluginMigrationResult,
} from "./migrate/types.js";
export {
  checkNamingRules,
  KERNEL_NAMING,
  type NamingProblem,
  type NamingRule,
  type NamingScope,
} from "./naming/naming-rules.js";
export { checkSqlKeywordCase } from "./naming/sql-keyword-case.js";
export { openStore } from "./open-store.js";
export * from "./plugins/index.js";
export {
  getPreference,
  KNOWN_PREFERENCES,
  listPreferences,
  type PreferenceEntry,
  parsePreferenceValue,
  setPreference,
  unsetPreference,
} from "./preferences/preferences.js";
export {
  type SettingContext,
  type SettingOrigin,
  type SettingSource,
  settingOrigin,
} from "./preferences/setting-source.js";
export * from "./schema.js";
export { readJsonConfigFile, readScopeConfig, type ScopeConfig } from "./scope-config.js";
export { storeErrorOf } from "./store-errors.js";
export type {
  NativeHandle,
  OpenStoreOptions,
  SqliteSynchronous,
  Store,
  StoreCapabilities,
  StoreDialectName,
  StoreLocation,
} from "./types.js";
export { type TableZone, zoneOf } from "./zones.js";
