import { join } from "node:path";
import { KeelError } from "../../core/index.js";
import type { PluginMigrationResult } from "../migrate/types.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import { createKvStore, type KvStore } from "./kv-store.js";
import { type DiscoveredPlugin, discoverPlugins, type PluginManifest } from "./manifest.js";
import { pluginTablePrefix } from "./plugin-id.js";
import { migratePlugins, type PluginMigrateOptions } from "./plugin-migrations.js";
import { pluginLoadProblem, readPluginState } from "./plugin-state.js";
import { createScopedDatabase, type DedicatedStore } from "./scoped-db.js";

/** Where a scope's plugins live: `<.keel>/plugins/<folder>/plugin.json`. */
export function pluginsDir(store: Store): string {
  return join(store.location.keelDir, "plugins");
}

/**
 * The plugins of the store's scope as loaders must see them: `disabled` when the user switched
 * one off (config_plugins), `load-error` when its last migration failed (state_plugin_failures,
 * durable across processes) or its migrations are not all applied. Loaders use only `enabled`
 * ones (governance packs: src/ir/run/packs.ts).
 */
export async function discoverStorePlugins(
  store: Store,
  dir = pluginsDir(store),
): Promise<DiscoveredPlugin[]> {
  const state = await readPluginState(store);
  return discoverPlugins(dir, state.disabled).map((plugin) => {
    if (plugin.status !== "enabled" || !plugin.manifest) return plugin;
    const problem = pluginLoadProblem(plugin.manifest, state);
    return problem ? { ...plugin, status: problem.status, statusReason: problem.reason } : plugin;
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
    options.plugins ?? discoverPlugins(pluginsDir(store), (await readPluginState(store)).disabled);
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
