import { builtInRegistry } from "../builtin-registry.js";
import type { CatalogConfig } from "../config.js";
import type { DisabledKinds, ExtensionRegistry } from "../registry.js";
import { type DiscoveredPlugin, discoverPlugins } from "./discover.js";
import { loadPlugins } from "./load.js";

/** A scope's registry and what became of each plugin found there. */
export interface ScopeRegistry {
  readonly registry: ExtensionRegistry;
  readonly plugins: readonly DiscoveredPlugin[];
}

/**
 * The registry a scope scans with: the built-ins, then every enabled plugin of the scope's
 * plugin folders (see `discoverPlugins`); the config's `adapters` choose and order the adapters;
 * whole kinds are switched off as asked.
 *
 * @example
 * const { registry, plugins } = await scopeRegistry(root, readCatalogConfig(root));
 * for (const p of plugins) if (p.status !== "enabled") console.error(p.id, p.statusReason);
 */
export async function scopeRegistry(
  root: string,
  config: CatalogConfig,
  disabled: DisabledKinds = {},
): Promise<ScopeRegistry> {
  const registry = builtInRegistry();
  const plugins = discoverPlugins(root, config);
  await loadPlugins(registry, plugins);
  if (config.adapters) registry.selectAdapters(config.adapters);
  return { registry: registry.disable(disabled), plugins };
}
