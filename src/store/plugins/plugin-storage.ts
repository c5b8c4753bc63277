import { join } from "node:path";
import { KeelError } from "../../core/index.js";
import type { PluginMigrationResult } from "../migrate/types.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import { createKvStore, type KvStore } from "./kv-store.js";
import { type DiscoveredPlugin, discoverPlugins, type PluginManifest } from "./manifest.js";
import { pluginTablePrefix } from "./plugin-id.js";
import { migratePlugins, type PluginMigrateOptions } from "./plugin-migrations.js";
import { createScopedDatabase, type DedicatedStore } from "./scoped-db.js";

/** Where a scope's plugins live: `<.keel>/plugins/<folder>/plugin.json`. */
export function pluginsDir(store: Store): string {
  return join(store.location.keelDir, "plugins");
}

/** The plugins of the store's scope, with user-disabled ones (config_plugins) marked. */
export async function discoverStorePlugins(
  store: Store,
  dir = pluginsDir(store),
): Promise<DiscoveredPlugin[]> {
  const disabled = await store.kysely
    .selectFrom("config_plugins")
    .select("plugin_id")
    .where("enabled", "=", 0)
    .execute()
    .catch(() => []);
  return discoverPlugins(dir, new Set(disabled.map((row) => row.plugin_id)));
}

/**
 * Applies the pending migrations of the scope's `dedicated`-storage plugins (after the kernel,
 * alphabetically). A failing plugin comes back `load-error`; the others still migrate.
 *
 * @example
 * const results = await migrateStorePlugins(store);
 * for (const r of results) if (r.status !== "enabled") console.warn(r.pluginId, r.reason);
 */
export async function migrateStorePlugins(
  store: Store,
  options: PluginMigrateOptions & { plugins?: readonly DiscoveredPlugin[] } = {},
): Promise<PluginMigrationResult[]> {
  const plugins = options.plugins ?? (await discoverStorePlugins(store));
  return migratePlugins(internalsOf(store).backend, plugins, options);
}

/**
 * The `ctx.store` a plugin receives: a KvStore for `kv`, a DedicatedStore (scoped connection)
 * for `dedicated`, undefined when it declared no storage.
 */
export function pluginStorage(
  store: Store,
  manifest: PluginManifest,
): KvStore | DedicatedStore | undefined {
  const storage = manifest.storage;
  if (!storage) return undefined;
  if (storage.mode === "kv") return createKvStore(store.kysely, manifest.id);
  if (storage.mode === "dedicated") {
    return {
      db: createScopedDatabase(store.kysely, {
        pluginId: manifest.id,
        prefix: pluginTablePrefix(manifest.id),
        tables: new Set(storage.tables),
        dialect: store.dialect,
      }),
    };
  }
  throw new KeelError("PLUGIN_STORAGE", `Unknown storage mode for plugin "${manifest.id}".`);
}
