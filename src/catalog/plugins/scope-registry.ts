import {
  type DiscoveredPlugin,
  discoverPlugins,
  type PluginState,
  pluginFolders,
  resolvePluginSettings,
} from "../../store/index.js";
import { builtInRegistry } from "../builtin-registry.js";
import type { CatalogConfig } from "../config.js";
import type { DisabledKinds, ExtensionRegistry } from "../registry.js";
import { loadPlugins } from "./load.js";

/** A scope's registry and what became of each plugin found there. */
export interface ScopeRegistry {
  readonly registry: ExtensionRegistry;
  readonly plugins: readonly DiscoveredPlugin[];
}

/** How `scopeRegistry` builds: kinds switched off, and the database's plugin state. */
export interface ScopeRegistryOptions {
  readonly disabled?: DisabledKinds;
  /**
   * Reads the database's plugin state (`readPluginState(store)`): `config_plugins` switches and
   * config (which win over the config file's `plugins`), failed or pending plugin migrations.
   * Called only when the scope has a plugin; without it only the config file decides.
   */
  readonly state?: () => Promise<PluginState>;
}

/**
 * The registry a scope scans with: the built-ins, then every enabled plugin of the scope's
 * plugin folders (the store's one discovery, `discoverPlugins`), each given its config; the
 * config's `adapters` choose and order the adapters; whole kinds are switched off as asked.
 *
 * @example
 * const { registry, plugins } = await scopeRegistry(root, readCatalogConfig(root), {
 *   state: () => readPluginState(store),
 * });
 * for (const p of plugins) if (p.status !== "enabled") console.error(p.id, p.statusReason);
 */
export async function scopeRegistry(
  root: string,
  config: CatalogConfig,
  options: ScopeRegistryOptions = {},
): Promise<ScopeRegistry> {
  const registry = builtInRegistry();
  const folders = pluginFolders(root);
  const settings = config.plugins;
  let plugins = discoverPlugins(folders, { settings });
  let state: PluginState | undefined;
  if (plugins.length > 0 && options.state) {
    state = await options.state();
    plugins = discoverPlugins(folders, { settings, state });
  }
  const configs = Object.fromEntries(
    plugins.map((p) => [p.id, resolvePluginSettings(p.id, { settings, state }).config]),
  );
  await loadPlugins(registry, plugins, configs);
  if (config.adapters) registry.selectAdapters(config.adapters);
  return { registry: registry.disable(options.disabled ?? {}), plugins };
}
