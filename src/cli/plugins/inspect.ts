import { type CatalogConfig, readCatalogConfig, scopeRegistry } from "../../catalog/index.js";
import {
  type DiscoveredPlugin,
  pluginFolders,
  type ResolvedPluginSettings,
  readPluginState,
  resolvePluginSettings,
  type Store,
} from "../../store/index.js";
import { scopeRoot } from "../catalog/context.js";
import type { StoreCliOptions } from "../scope.js";

/** One plugin as `keel plugins` reports it: its discovery, settings and registered extensions. */
export interface InspectedPlugin {
  readonly plugin: DiscoveredPlugin;
  readonly settings: ResolvedPluginSettings;
  /** The catalog extensions it registered (empty unless `enabled`). */
  readonly extensions: readonly {
    kind: string;
    id: string;
    version: string;
    description: string;
  }[];
}

/** The scope's plugins as a scan would load them: the one discovery, then the catalog's load. */
export interface PluginsInspection {
  readonly root: string;
  readonly folders: readonly string[];
  readonly config: CatalogConfig;
  readonly plugins: readonly InspectedPlugin[];
}

/**
 * Discovers the scope's plugins with the database's state and loads the enabled ones, so each
 * status is the one a scan would see (a plugin whose module fails to import is `load-error`).
 */
export async function inspectPlugins(
  options: StoreCliOptions,
  store: Store,
): Promise<PluginsInspection> {
  const root = scopeRoot(options);
  const config = readCatalogConfig(root);
  const state = await readPluginState(store);
  const { registry, plugins } = await scopeRegistry(root, config, { state: async () => state });
  const extensions = registry.all();
  return {
    root,
    folders: pluginFolders(root),
    config,
    plugins: plugins.map((plugin) => ({
      plugin,
      settings: resolvePluginSettings(plugin.id, { settings: config.plugins, state }),
      extensions: extensions
        .filter((e) => e.pluginId === plugin.id)
        .map((e) => ({ kind: e.kind, id: e.id, version: e.version, description: e.description })),
    })),
  };
}

/** The spec's `DiscoveredPlugin` shape (plugins-registry.schema.json): exactly its five keys. */
export function discoveredJson(plugin: DiscoveredPlugin): Record<string, unknown> {
  return {
    id: plugin.id,
    path: plugin.path,
    manifest: plugin.manifest,
    status: plugin.status,
    statusReason: plugin.statusReason,
  };
}
