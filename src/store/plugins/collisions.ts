import type { DiscoveredPlugin } from "./discovered.js";
import { normalizePluginId, pluginTablePrefix } from "./plugin-id.js";

/**
 * Two plugins whose ids normalise alike would share tables: both are refused (the seed: "both
 * plugins are disabled with reason invalid-manifest"); so are two with the same id in Keel's and
 * the spec's plugin folders. So are two dedicated-storage plugins whose prefixes nest (`acme`'s
 * `plugin_acme_` begins `plugin_acme_b_` of `acme-b`): `plugin_acme_b_notes` would fit both.
 */
export function markCollisions(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  return markNestedPrefixes(markSameIds(plugins));
}

function markNestedPrefixes(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  const dedicated = plugins.filter(
    (plugin) =>
      plugin.manifest?.storage?.mode === "dedicated" && plugin.status !== "invalid-manifest",
  );
  return plugins.map((plugin) => {
    if (!dedicated.includes(plugin)) return plugin;
    const prefix = pluginTablePrefix(plugin.id);
    const nested = dedicated.filter((other) => {
      const otherPrefix = pluginTablePrefix(other.id);
      return other !== plugin && (otherPrefix.startsWith(prefix) || prefix.startsWith(otherPrefix));
    });
    if (nested.length === 0) return plugin;
    const others = nested.map((p) => `"${p.id}" (${pluginTablePrefix(p.id)}, ${p.path})`);
    return {
      ...plugin,
      status: "invalid-manifest",
      statusReason: `its table prefix ${prefix} and that of ${others.join(", ")} begin one another, so a table name could belong to either; rename one of them`,
    };
  });
}

function markSameIds(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  const byNormalized = new Map<string, DiscoveredPlugin[]>();
  for (const plugin of plugins) {
    const key = normalizePluginId(plugin.id);
    byNormalized.set(key, [...(byNormalized.get(key) ?? []), plugin]);
  }
  return plugins.map((plugin) => {
    const group = byNormalized.get(normalizePluginId(plugin.id)) ?? [];
    if (group.length < 2) return plugin;
    const others = group.filter((p) => p !== plugin).map((p) => `"${p.id}" (${p.path})`);
    return {
      ...plugin,
      status: "invalid-manifest",
      statusReason: `its id collides with ${others.join(", ")} after normalisation to "${normalizePluginId(plugin.id)}"; rename one of them`,
    };
  });
}
