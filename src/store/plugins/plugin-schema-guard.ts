import type { Kysely } from "kysely";
import type { StoreBackend } from "../dialects/backend.js";
import type { SchemaObject } from "../dialects/schema-snapshot.js";
import { checkNamingRules } from "../naming/naming-rules.js";
import type { KernelDatabase } from "../schema.js";
import { PluginForbiddenSqlError } from "./errors.js";
import { PLUGIN_SQL_RULES } from "./plugin-sql-rules.js";

/** Whose migration is guarded: the plugin, and which tables are its own. */
export interface GuardedPlugin {
  readonly pluginId: string;
  readonly prefix: string;
  /** The migration file, for messages. */
  readonly file: string;
  readonly owns: (table: string) => boolean;
}

/**
 * The backstop behind DDL validation, run inside the migration's transaction: the schema of
 * everything the plugin does not own is read before the SQL and again after it, and any
 * difference refuses (rolls back) the migration, whatever the validator missed. After the SQL,
 * the plugin's own tables must also follow the naming rules.
 */
export function pluginMigrationGuard(backend: StoreBackend, plugin: GuardedPlugin) {
  return async (tx: Kysely<KernelDatabase>) => {
    const before = foreignObjects(await backend.schemaObjects(tx), plugin.owns);
    return async (after: Kysely<KernelDatabase>) => {
      const now = foreignObjects(await backend.schemaObjects(after), plugin.owns);
      const changed = [
        ...[...before].filter((text) => !now.has(text)).map((text) => `- ${text}`),
        ...[...now].filter((text) => !before.has(text)).map((text) => `+ ${text}`),
      ];
      if (changed.length > 0) {
        throw new PluginForbiddenSqlError(
          "kernel-schema-changed",
          `Plugin "${plugin.pluginId}", ${plugin.file}: ${PLUGIN_SQL_RULES["kernel-schema-changed"]}: ${changed.slice(0, 5).join("; ")} [rule: kernel-schema-changed].`,
          { details: { pluginId: plugin.pluginId, file: plugin.file, changed } },
        );
      }
      const problems = checkNamingRules(await backend.introspect(after), {
        tablePrefixes: [plugin.prefix],
        only: [plugin.prefix],
      }).filter((problem) => plugin.owns(problem.table));
      if (problems.length > 0) {
        throw new PluginForbiddenSqlError(
          "naming",
          `Plugin "${plugin.pluginId}", ${plugin.file}: ${PLUGIN_SQL_RULES.naming}: ${problems.map((p) => p.message).join("; ")} [rule: naming].`,
          { details: { pluginId: plugin.pluginId, problems } },
        );
      }
    };
  };
}

/** The objects that touch at least one table the plugin does not own (or no table at all). */
function foreignObjects(
  objects: readonly SchemaObject[],
  owns: (table: string) => boolean,
): Set<string> {
  return new Set(
    objects
      .filter((object) => object.tables.length === 0 || object.tables.some((t) => !owns(t)))
      .map((object) => object.text),
  );
}
