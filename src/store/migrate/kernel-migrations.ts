import type { Kysely } from "kysely";
import { type Clock, KeelError, systemClock } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import type { KernelDatabase } from "../schema.js";
import { applyMigration } from "./apply-migration.js";
import { highestVersion, readLedger } from "./ledger.js";
import { assertNotTooNew } from "./too-new.js";
import type { KernelMigrationStatus, MigrationFile, MigrationReport } from "./types.js";

export { assertNotTooNew };

/** Options of one kernel migrate pass. */
export interface KernelMigrateOptions {
  readonly files: readonly MigrationFile[];
  /** Stop after this version (`keel db migrate --to <n>`). */
  readonly to?: number | undefined;
  readonly dryRun?: boolean | undefined;
  /**
   * Called once, under the lock, before the first pending migration applies, with the version
   * the database is at; returns the backup written (or null). A throw aborts before any change.
   */
  readonly backup?: ((fromVersion: number) => Promise<string | null>) | undefined;
  readonly clock?: Clock | undefined;
  readonly onProgress?: ((message: string) => void) | undefined;
}

/** Where the kernel schema stands, read from the ledger and the user_version mirror. */
export async function kernelStatus(
  backend: StoreBackend,
  files: readonly MigrationFile[],
  db: Kysely<KernelDatabase> = backend.kysely,
): Promise<KernelMigrationStatus> {
  const applied = await readLedger(backend, db, { scope: "kernel", ownerId: "kernel" });
  const current = highestVersion(applied);
  const userVersion = await backend.readUserVersion(db);
  const latest = files.length;
  return {
    current,
    userVersion,
    latest,
    applied,
    pending: files
      .filter((file) => file.version > current)
      .map((file) => ({ version: file.version, name: file.name })),
  };
}

/**
 * Applies pending kernel migrations, each in its own transaction, recorded in
 * `config_schema_versions` and mirrored in the user_version. Holds the dialect's migration lock
 * for the whole pass, so concurrent starters take turns and later ones find nothing to do.
 */
export async function migrateKernel(
  backend: StoreBackend,
  options: KernelMigrateOptions,
): Promise<MigrationReport["kernel"]> {
  const clock = options.clock ?? systemClock;
  // A dry run reads only: it takes no lock (the SQLite lock file would be created).
  const locked = <T>(fn: (db: Kysely<KernelDatabase>) => Promise<T>) =>
    options.dryRun ? fn(backend.kysely) : backend.withMigrationLock(fn);
  return locked(async (db) => {
    const status = await kernelStatus(backend, options.files, db);
    const where = describe(backend);
    assertNotTooNew(Math.max(status.current, status.userVersion), status.latest, where);
    const target = options.to ?? status.latest;
    if (target < status.current) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `Cannot migrate down to version ${target}: ${where} is at ${status.current} and migrations are up-only.`,
        {
          details: { current: status.current, target },
          hint: "Restore a backup with `keel db restore <path>` instead.",
        },
      );
    }
    if (target > status.latest) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `There is no migration ${target}; the newest is ${status.latest}.`,
        {
          details: { target, latest: status.latest },
        },
      );
    }
    const pending = options.files.filter(
      (file) => file.version > status.current && file.version <= target,
    );
    const planned = pending.map((file) => ({ version: file.version, name: file.name }));
    if (pending.length === 0 && !options.dryRun && status.userVersion !== status.current) {
      // The ledger is the record; the user_version is only its fast mirror. Re-align it.
      await backend.writeUserVersion(db, status.current);
    }
    if (pending.length === 0 || options.dryRun) {
      return {
        from: status.current,
        to: options.dryRun ? target : status.current,
        applied: options.dryRun ? planned : [],
        backupPath: null,
      };
    }
    const backupPath = options.backup ? await options.backup(status.current) : null;
    const applied: { version: number; name: string }[] = [];
    for (const file of pending) {
      options.onProgress?.(`migrating kernel: ${file.name}`);
      try {
        const done = await applyMigration(backend, db, {
          scope: "kernel",
          ownerId: "kernel",
          file,
          sql: file.sql,
          appliedAt: clock.now(),
          mirrorUserVersion: true,
        });
        if (done) applied.push({ version: file.version, name: file.name });
      } catch (error) {
        throw migrationError(error, file, status.current, backupPath, applied.length);
      }
    }
    return { from: status.current, to: target, applied, backupPath };
  });
}

function describe(backend: StoreBackend): string {
  return backend.location.dialect === "sqlite" ? backend.location.path : "The Postgres database";
}

function migrationError(
  error: unknown,
  file: MigrationFile,
  from: number,
  backupPath: string | null,
  appliedBefore: number,
): KeelError {
  if (error instanceof KeelError && error.code !== "MIGRATION_FAILED") return error;
  const reason = error instanceof Error ? error.message : String(error);
  const at = from + appliedBefore;
  return new KeelError(
    "MIGRATION_FAILED",
    `Migration ${file.name} failed and was rolled back: ${reason}. The database is at version ${at}, as before this migration.`,
    {
      cause: error,
      details: {
        migration: file.name,
        file: file.file,
        version: file.version,
        databaseVersion: at,
        backupPath,
      },
      hint: backupPath
        ? `The pre-migrate backup is ${backupPath} (\`keel db restore ${backupPath}\`).`
        : "Fix the migration and run `keel db migrate` again.",
    },
  );
}
