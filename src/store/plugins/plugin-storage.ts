import { existsSync } from "node:fs";
import { join } from "node:path";
import { KeelError } from "../../core/index.js";
import type { PluginMigrationResult } from "../migrate/types.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import {
  type DiscoveredPlugin,
  type DiscoverOptions,
  discoverPlugins,
  keelDirPluginFolders,
} from "./discover.js";
import { readPluginFileSettings } from "./file-settings.js";
import { createKvStore, type KvStore } from "./kv-store.js";
import type { PluginManifest } from "./manifest.js";
import { pluginTablePrefix } from "./plugin-id.js";
import { migratePlugins, type PluginMigrateOptions } from "./plugin-migrations.js";
import { pluginLoadProblem, readPluginState } from "./plugin-state.js";
import { createScopedDatabase, type DedicatedStore } from "./scoped-db.js";

/** Keel's plugin folder of the store's scope: `<.keel>/plugins`. */
export function pluginsDir(store: Store): string {
  return join(store.location.keelDir, "plugins");
}

/** Every plugin folder of the store's scope: `<.keel>/plugins`, then the spec's `.skill-map/plugins` beside it. */
export function storePluginFolders(store: Store): string[] {
  return keelDirPluginFolders(store.location.keelDir);
}

/**
 * The plugins of the store's scope as loaders must see them (`discoverPlugins` with the
 * database's state): `disabled` when the user switched one off (config_plugins, which wins over
 * `settings`, the config file's `plugins` map), `load-error` when its last migration failed
 * (state_plugin_failures, durable across processes) or its migrations are not all applied.
 * Loaders use only `enabled` ones (governance packs: src/ir/run/packs.ts; catalog extensions:
 * src/catalog/plugins). The database is not read when no plugin folder exists.
 *
 * @example
 * const plugins = await discoverStorePlugins(store, { settings: config.plugins });
 */
export async function discoverStorePlugins(
  store: Store,
  options: Pick<DiscoverOptions, "settings"> & { folders?: readonly string[] } = {},
): Promise<DiscoveredPlugin[]> {
  const folders = options.folders ?? storePluginFolders(store);
  if (!folders.some((folder) => existsSync(folder))) return [];
  return discoverPlugins(folders, {
    settings: options.settings ?? readPluginFileSettings(store.location.keelDir),
    state: await readPluginState(store),
  });
}

/**
 * Applies the pending migrations of the scope's `dedicated`-storage plugins (after the kernel, in
 * code-point order of id). A failing plugin comes back `load-error` (and is recorded so); the others
 * still migrate. A plugin whose last attempt failed is tried again.
 *
 * @example
 * const results = await migrateStorePlugins(store);
 * for (const r of results) if (r.status !== "enabled") console.warn(r.pluginId, r.reason);
 */
export async function migrateStorePlugins(
  store: Store,
  options: PluginMigrateOptions & { plugins?: readonly DiscoveredPlugin[] } = {},
): Promise<PluginMigrationResult[]> {
  const plugins =
    options.plugins ??
    discoverPlugins(storePluginFolders(store), {
      state: await readPluginState(store),
      settings: readPluginFileSettings(store.location.keelDir),
      readiness: false,
    });
  return migratePlugins(internalsOf(store).backend, plugins, options);
}

/**
 * The `ctx.store` a plugin receives: a KvStore for `kv`, a DedicatedStore (scoped connection)
 * for `dedicated`, undefined when it declared no storage. Before its first operation the accessor
 * checks that the plugin may be loaded (not switched off, not `load-error`, its migrations all
 * applied) and refuses with PLUGIN_STORAGE otherwise.
 */
export function pluginStorage(
  store: Store,
  manifest: PluginManifest,
): KvStore | DedicatedStore | undefined {
  const storage = manifest.storage;
  if (!storage) return undefined;
  const ready = async () => {
    const problem = pluginLoadProblem(manifest, await readPluginState(store));
    if (problem) {
      throw new KeelError(
        "PLUGIN_STORAGE",
        `Plugin "${manifest.id}" is ${problem.status}: ${problem.reason}; its storage is not available.`,
        {
          details: { pluginId: manifest.id, status: problem.status },
          hint: "`keel doctor` and `keel db migrate --status` show why; fix the plugin and run `keel db migrate`.",
        },
      );
    }
  };
  if (storage.mode === "kv")
    return checkedKv(createKvStore(store.kysely, manifest.id, undefined, store.dialect), ready);
  if (storage.mode === "dedicated") {
    const { backend } = internalsOf(store);
    return {
      db: createScopedDatabase(
        store.kysely,
        {
          pluginId: manifest.id,
          prefix: pluginTablePrefix(manifest.id),
          tables: new Set(storage.tables),
          dialect: store.dialect,
        },
        { ready, relations: async () => new Set(await backend.relationNames(store.kysely)) },
      ),
    };
  }
  throw new KeelError("PLUGIN_STORAGE", `Unknown storage mode for plugin "${manifest.id}".`);
}

/** A KvStore whose first operation waits for `ready` (and fails with it). */
function checkedKv(kv: KvStore, ready: () => Promise<void>): KvStore {
  let checked: Promise<void> | undefined;
  const once = () => {
    checked ??= ready().catch((error: unknown) => {
      checked = undefined;
      throw error;
    });
    return checked;
  };
  return {
    get: (key, options) => once().then(() => kv.get(key, options)),
    set: (key, value, options) => once().then(() => kv.set(key, value, options)),
    delete: (key, options) => once().then(() => kv.delete(key, options)),
    list: (options) => once().then(() => kv.list(options)),
  };
}
