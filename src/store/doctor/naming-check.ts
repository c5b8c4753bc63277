import type { SchemaSnapshot } from "../dialects/schema-snapshot.js";
import {
  checkNamingRules,
  KERNEL_NAMING,
  type NamingProblem,
  type NamingScope,
} from "../naming/naming-rules.js";
import type { DiscoveredPlugin } from "../plugins/discover.js";
import { pluginTablePrefix } from "../plugins/plugin-id.js";
import { ownsTable, type PluginNamespace } from "../plugins/plugin-namespace.js";

/** The namespaces of the installed `dedicated` plugins (switched off or not: they keep their tables). */
export function dedicatedNamespaces(plugins: readonly DiscoveredPlugin[]): PluginNamespace[] {
  return plugins.flatMap((plugin) => {
    const storage = plugin.manifest?.storage;
    if (storage?.mode !== "dedicated") return [];
    return [
      {
        pluginId: plugin.id,
        prefix: pluginTablePrefix(plugin.id),
        tables: new Set(storage.tables),
      },
    ];
  });
}

/**
 * The naming check of `keel doctor`: kernel tables against the kernel's zones, each plugin's
 * tables against its own prefix (a healthy plugin is not a warning), a `plugin_` table no
 * installed plugin declares against the plugin namespace, anything else as outside the zones.
 */
export function namingCheck(
  snapshot: SchemaSnapshot,
  plugins: readonly DiscoveredPlugin[],
): { status: "ok" | "warn"; message: string; remedy: string | null } {
  const namespaces = dedicatedNamespaces(plugins);
  const kernel: NamingProblem[] = [];
  const ofPlugins: NamingProblem[] = [];
  for (const table of snapshot.tables) {
    const owner = namespaces.find((namespace) => ownsTable(namespace, table.name));
    const scope: NamingScope = owner
      ? { tablePrefixes: [owner.prefix] }
      : table.name.startsWith("plugin_")
        ? { tablePrefixes: ["plugin_"] }
        : KERNEL_NAMING;
    const found = checkNamingRules({ tables: [table] }, scope);
    (scope === KERNEL_NAMING ? kernel : ofPlugins).push(...found);
  }
  if (kernel.length === 0 && ofPlugins.length === 0) {
    return {
      status: "ok",
      message: `Every table follows the zone and naming rules (${namespaces.length} plugin namespace(s) checked against their own prefix).`,
      remedy: null,
    };
  }
  const remedies = [
    kernel.some((p) => p.rule === "table-zone-prefix")
      ? "A table outside the scan_/state_/config_/plugin_ zones was made by something other than Keel: drop or rename it if nothing needs it."
      : "",
    kernel.some((p) => p.rule !== "table-zone-prefix")
      ? "A kernel table breaks the rules: Keel's own migrations must not, so report it (docs/store.md, Zones and naming)."
      : "",
    ofPlugins.length > 0
      ? "A plugin's table breaks the rules: the plugin must fix it with a new migration of its own (renaming the table, column or index)."
      : "",
  ].filter(Boolean);
  return {
    status: "warn",
    message: [...kernel, ...ofPlugins].map((p) => p.message).join("; "),
    remedy: remedies.join(" "),
  };
}
