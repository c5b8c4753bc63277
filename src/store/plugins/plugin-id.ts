/**
 * Normalises a plugin id for its table prefix (seed 004): lowercase, every character outside
 * [a-z0-9] becomes `_`, runs of `_` collapse, and leading/trailing `_` go.
 *
 * @example
 * normalizePluginId("@skill-map/cluster-triggers"); // "skill_map_cluster_triggers"
 */
export function normalizePluginId(id: string): string {
  return id
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
}

/** The prefix of every table a plugin owns: `plugin_<normalized id>_`. */
export function pluginTablePrefix(id: string): string {
  return `plugin_${normalizePluginId(id)}_`;
}
