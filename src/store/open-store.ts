import { existsSync } from "node:fs";
// Registers the SQLite error translator with core (toKeelError) wherever a store is opened.
import "./store-errors.js";
import type { Transaction } from "kysely";
import { KeelError } from "../core/index.js";
import { writePreMigrateBackup } from "./backup/pre-migrate-backup.js";
import type { StoreBackend } from "./dialects/backend.js";
import { openPostgresBackend } from "./dialects/postgres/postgres-backend.js";
import { openSqliteBackend } from "./dialects/sqlite/sqlite-backend.js";
import { sqliteFileError } from "./dialects/sqlite/sqlite-errors.js";
import { resolveStoreLocation } from "./location.js";
import { assertNotTooNew, migrateKernel } from "./migrate/kernel-migrations.js";
import { kernelMigrationsDir, loadMigrationFiles } from "./migrate/migration-files.js";
import type { MigrationReport, PluginMigrationResult } from "./migrate/types.js";
import { discoverPlugins, keelDirPluginFolders } from "./plugins/discover.js";
import { readPluginFileSettings } from "./plugins/file-settings.js";
import { migratePlugins } from "./plugins/plugin-migrations.js";
import { readPluginStateOf } from "./plugins/plugin-state-of.js";
import type { KernelDatabase } from "./schema.js";
import { readScopeConfig } from "./scope-config.js";
import type { OpenStoreOptions, Store, StoreLocation } from "./types.js";

/**
 * Opens the kernel database and brings its schema up to date.
 *
 * Which database: `db` (a path, `:memory:` or `postgres://` URL) or `location`, else
 * `KEEL_DATABASE_URL`, else the scope's `.keel/config.json`, else `./.keel/keel.db` (project) or
 * `~/.keel/keel.db` (`scope: "global"` or `KEEL_SCOPE=global`).
 *
 * Pending kernel migrations are applied on open unless `autoMigrate: false` (or `auto_migrate`
 * false in the config file or preferences); on SQLite a backup is written first. A database newer
 * than this code is refused (STORE_TOO_NEW) before anything is written.
 *
 * @example
 * const store = await openStore({ db: "postgres://keel@db/keel" });
 * const rows = await store.kysely.selectFrom("state_jobs").selectAll().execute();
 * await store.close();
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const location =
    options.location ??
    resolveStoreLocation({ db: options.db, scope: options.scope, cwd: options.cwd });
  // The migration files first: a bad name or a gap is refused before any file or folder exists.
  const migrationsDir = options.migrationsDir ?? kernelMigrationsDir(location.dialect);
  const files = loadMigrationFiles(migrationsDir);
  const latest = files.length;
  const backend = await openBackend(location, { ...options, migrationsDir });
  try {
    // The fast path: one cheap read of the user_version says whether anything is due.
    const userVersion = await backend.readUserVersion(backend.kysely);
    assertNotTooNew(userVersion, latest, describe(location));
    let kernel: MigrationReport["kernel"] = {
      from: userVersion,
      to: userVersion,
      applied: [],
      backupPath: null,
    };
    const pluginDirs = keelDirPluginFolders(location.keelDir);
    const hasPlugins =
      location.dialect === "sqlite" && location.path === ":memory:"
        ? false
        : pluginDirs.some((dir) => existsSync(dir));
    const auto =
      userVersion !== latest || hasPlugins
        ? await autoMigrateEnabled(backend, location, options)
        : false;
    if (userVersion !== latest && auto) {
      kernel = await migrateKernel(backend, {
        files,
        backup:
          options.backupBeforeMigrate === false
            ? undefined
            : (from) => writePreMigrateBackup(backend, from),
        onProgress: options.onProgress,
      });
    }
    let plugins: PluginMigrationResult[] = [];
    if (auto && hasPlugins && kernel.to === latest) {
      // Plugins migrate after the kernel, in code-point order of id; a failing one is reported, not fatal.
      // Only the user's switches count here: a failed plugin is tried again, a pending one migrated.
      const state = await readPluginStateOf(backend);
      plugins = await migratePlugins(
        backend,
        discoverPlugins(pluginDirs, {
          state,
          settings: readPluginFileSettings(location.keelDir),
          readiness: false,
        }),
        { onProgress: options.onProgress },
      );
    }
    return new KeelStore(backend, migrationsDir, { dryRun: false, kernel, plugins });
  } catch (error) {
    await backend.close().catch(() => {});
    if (error instanceof KeelError) throw error;
    const path = location.dialect === "sqlite" ? location.path : undefined;
    throw (path ? sqliteFileError(error, path) : undefined) ?? error;
  }
}

/** Opens the engine without touching the schema (what `openStore` and the `db` verbs build on). */
export function openBackend(
  location: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<StoreBackend> {
  if (location.dialect === "sqlite") {
    return Promise.resolve(
      openSqliteBackend(location, {
        latestVersion: loadMigrationFiles(
          options.migrationsDir ?? kernelMigrationsDir(location.dialect),
        ).length,
        synchronous: options.synchronous ?? "NORMAL",
        busyTimeoutMs: options.busyTimeoutMs ?? 5000,
        readOnly: options.readOnly === true,
        backgroundCheckpoint: options.backgroundCheckpoint ?? true,
      }),
    );
  }
  return openPostgresBackend(location, {
    poolSize: options.poolSize ?? 10,
    ...(options.postgresTimeouts ? { timeouts: options.postgresTimeouts } : {}),
    readOnly: options.readOnly === true,
  });
}

async function autoMigrateEnabled(
  backend: StoreBackend,
  location: StoreLocation,
  options: OpenStoreOptions,
): Promise<boolean> {
  if (options.readOnly) return false;
  if (options.autoMigrate !== undefined) return options.autoMigrate;
  const fromFile = readScopeConfig(location.keelDir).auto_migrate;
  if (fromFile !== undefined) return fromFile;
  if (!(await backend.tableExists(backend.kysely, "config_preferences"))) return true;
  const row = await backend.kysely
    .selectFrom("config_preferences")
    .select("value_json")
    .where("key", "=", "auto_migrate")
    .executeTakeFirst();
  return row ? row.value_json !== "false" : true;
}

function describe(location: StoreLocation): string {
  return location.dialect === "sqlite" ? location.path : "The Postgres database";
}

/** The Store handed to callers: the backend's pieces plus transactions and close. */
class KeelStore implements Store {
  readonly kysely;
  readonly dialect;
  readonly capabilities;
  readonly location;
  readonly native;
  readonly supportsSkipLocked;
  readonly supportsAdvisoryLocks;
  readonly supportsTransactionalDdl;
  readonly supportsMultipleConnections;
  readonly supportsReturning;
  readonly supportsNativeJson;

  constructor(
    /** @internal the engine port, for the store's own services (backup, doctor, plugins). */
    readonly backend: StoreBackend,
    /** @internal where this store's kernel migrations come from. */
    readonly migrationsDir: string,
    readonly openReport: MigrationReport,
  ) {
    this.kysely = backend.kysely;
    this.dialect = backend.name;
    this.capabilities = backend.capabilities;
    this.location = backend.location;
    this.native = backend.native;
    this.supportsSkipLocked = backend.capabilities.supportsSkipLocked;
    this.supportsAdvisoryLocks = backend.capabilities.supportsAdvisoryLocks;
    this.supportsTransactionalDdl = backend.capabilities.supportsTransactionalDdl;
    this.supportsMultipleConnections = backend.capabilities.supportsMultipleConnections;
    this.supportsReturning = backend.capabilities.supportsReturning;
    this.supportsNativeJson = backend.capabilities.supportsNativeJson;
  }

  transaction<T>(fn: (tx: Transaction<KernelDatabase>) => Promise<T>): Promise<T> {
    return this.kysely.transaction().execute(fn);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

/** The engine port behind a store opened by `openStore` (for the store's own services). */
export function backendOf(store: Store): StoreBackend {
  return internalsOf(store).backend;
}

/** The engine port and migrations folder behind a store opened by `openStore`. */
export function internalsOf(store: Store): { backend: StoreBackend; migrationsDir: string } {
  if (store instanceof KeelStore)
    return { backend: store.backend, migrationsDir: store.migrationsDir };
  throw new KeelError("INVALID_ARGUMENT", "This Store was not created by openStore().");
}
