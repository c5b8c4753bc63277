import { compareCodePoints } from "../../core/index.js";
import type { SchemaSnapshot, TableSnapshot } from "../dialects/schema-snapshot.js";
import type { DiscoveredPlugin } from "../plugins/discover.js";
import { ownsTable } from "../plugins/plugin-namespace.js";
import type { CheckOutcome } from "./job-checks.js";
import { dedicatedNamespaces } from "./naming-check.js";

/**
 * The `plugin-tables` check of `keel doctor`: a `plugin_` table that no installed `dedicated`
 * plugin declares in `storage.tables` (its plugin was removed or turned into a `kv` one, or
 * something else made it) belongs to nobody: no scoped connection reaches it and no plugin
 * migration will ever change it. A plugin switched off in `config_plugins` still owns its
 * tables (the reference keeps a disabled plugin's data). The remedy is the exact SQL that drops
 * them, children before the tables they reference, for `keel db shell`.
 */
export function pluginTablesCheck(
  snapshot: SchemaSnapshot,
  plugins: readonly DiscoveredPlugin[],
): CheckOutcome {
  const namespaces = dedicatedNamespaces(plugins);
  const orphans = snapshot.tables.filter(
    (table) =>
      table.name.startsWith("plugin_") &&
      !namespaces.some((namespace) => ownsTable(namespace, table.name)),
  );
  if (orphans.length === 0) {
    return {
      status: "ok",
      message: `Every plugin_ table belongs to an installed dedicated plugin (${namespaces.length} installed).`,
      remedy: null,
    };
  }
  const drops = dropOrder(orphans)
    .map((name) => `DROP TABLE "${name.replace(/"/g, '""')}";`)
    .join(" ");
  return {
    status: "warn",
    message: `${orphans.length} plugin table(s) belong to no installed dedicated plugin: ${orphans.map((t) => t.name).join(", ")}.`,
    remedy: `Reinstall the plugin that declares them (its folder in plugins/), or, if their data is not needed, drop them in \`keel db shell\` (with the --db or -g you gave doctor): \`${drops}\``,
  };
}

/** The orphans' names, each before the orphans it references (children first, so each drop succeeds). */
function dropOrder(tables: readonly TableSnapshot[]): string[] {
  const names = new Set(tables.map((t) => t.name));
  const done = new Set<string>();
  const order: string[] = [];
  // A table goes once no orphan still standing references it.
  while (order.length < tables.length) {
    const next = tables.find(
      (table) =>
        !done.has(table.name) &&
        !tables.some(
          (other) =>
            other.name !== table.name &&
            !done.has(other.name) &&
            other.references.includes(table.name),
        ),
    );
    // A cycle of references (no table is free): the rest in code-point order.
    const name = next?.name ?? [...names].filter((n) => !done.has(n)).sort(compareCodePoints)[0];
    if (name === undefined) break;
    done.add(name);
    order.push(name);
  }
  return order;
}
