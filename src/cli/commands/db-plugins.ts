import { migrateStorePlugins, type PluginMigrationResult, type Store } from "../../store/index.js";
import { type OutputOptions, progress } from "../output.js";

/** Plugin migrations for `keel db migrate` (after the kernel's, alphabetically). */
export function pluginMigrationsFor(
  store: Store,
  flags: { only?: string | undefined; dryRun: boolean; options: OutputOptions },
): Promise<PluginMigrationResult[]> {
  return migrateStorePlugins(store, {
    only: flags.only,
    dryRun: flags.dryRun,
    onProgress: (message) => progress(flags.options, message),
  });
}

/** What `keel db migrate --status` shows for plugins: a dry run, so broken SQL shows up too. */
export function pluginStatusRows(store: Store): Promise<PluginMigrationResult[]> {
  return migrateStorePlugins(store, { dryRun: true });
}
