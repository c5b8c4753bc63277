import { writePreMigrateBackup } from "../backup/pre-migrate-backup.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import { kernelStatus, migrateKernel } from "./kernel-migrations.js";
import { loadMigrationFiles } from "./migration-files.js";
import type { KernelMigrationStatus, MigrationReport } from "./types.js";

/** Options of `migrate` (the flags of `keel db migrate`). */
export interface MigrateOptions {
  /** Stop the kernel at this version. */
  readonly to?: number | undefined;
  /** Report what would be applied; change nothing. */
  readonly dryRun?: boolean | undefined;
  /** Write the SQLite pre-migrate backup (default true). */
  readonly backup?: boolean | undefined;
  readonly onProgress?: ((message: string) => void) | undefined;
}

/**
 * Applies pending kernel migrations to an open store (what `keel db migrate` does).
 *
 * @example
 * const store = await openStore({ autoMigrate: false });
 * const report = await migrate(store, { dryRun: true });
 * console.log(report.kernel.applied); // what would run
 */
export async function migrate(
  store: Store,
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const { backend, migrationsDir } = internalsOf(store);
  const kernel = await migrateKernel(backend, {
    files: loadMigrationFiles(migrationsDir),
    to: options.to,
    dryRun: options.dryRun,
    backup: options.backup === false ? undefined : (from) => writePreMigrateBackup(backend, from),
    onProgress: options.onProgress,
  });
  return { dryRun: options.dryRun === true, kernel, plugins: [] };
}

/** Where the kernel schema of an open store stands. */
export function kernelMigrationStatus(store: Store): Promise<KernelMigrationStatus> {
  const { backend, migrationsDir } = internalsOf(store);
  return kernelStatus(backend, loadMigrationFiles(migrationsDir));
}
