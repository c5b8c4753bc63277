import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type Clock, KeelError, systemClock } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { applyMigration } from "../migrate/apply-migration.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import type { MigrationFile, PluginMigrationResult } from "../migrate/types.js";
import { checkNamingRules } from "../naming/naming-rules.js";
import { PluginForbiddenSqlError } from "./errors.js";
import type { DiscoveredPlugin } from "./manifest.js";
import { pluginTablePrefix } from "./plugin-id.js";
import { rewritePluginMigration } from "./plugin-migration-sql.js";
import { PLUGIN_SQL_RULES } from "./plugin-sql-rules.js";

const MIGRATION_NAME = /^(\d{3})_([a-z0-9]+(?:_[a-z0-9]+)*)\.sql$/;

export interface PluginMigrateOptions {
  /** Only this plugin (`keel db migrate --plugin <id>`). */
  readonly only?: string | undefined;
  /** Validate and rewrite, apply nothing. */
  readonly dryRun?: boolean | undefined;
  readonly clock?: Clock | undefined;
  readonly onProgress?: ((message: string) => void) | undefined;
}

/**
 * Applies plugins' migrations after the kernel's, in alphabetical order of plugin id. Each
 * migration is validated and prefix-injected, applied in its own transaction with its ledger row
 * (`scope = 'plugin'`), and the plugin's tables are checked against the naming rules before
 * commit. A plugin whose migration fails is reported `load-error` and left as it was; the others
 * carry on.
 */
export async function migratePlugins(
  backend: StoreBackend,
  plugins: readonly DiscoveredPlugin[],
  options: PluginMigrateOptions = {},
): Promise<PluginMigrationResult[]> {
  const clock = options.clock ?? systemClock;
  const selected = [...plugins]
    .filter((plugin) => options.only === undefined || plugin.id === options.only)
    .sort((a, b) => a.id.localeCompare(b.id));
  if (options.only !== undefined && selected.length === 0) {
    throw new KeelError("NOT_FOUND", `No plugin "${options.only}" was found.`, {
      details: { pluginId: options.only },
      hint: "Plugins live in .keel/plugins/<name>/plugin.json; `keel db migrate --status` lists them.",
    });
  }
  const results: PluginMigrationResult[] = [];
  for (const plugin of selected) {
    if (plugin.status === "disabled") continue; // the user switched it off: leave it alone
    if (plugin.status !== "enabled") {
      results.push({
        pluginId: plugin.id,
        status:
          plugin.status === "load-error" || plugin.status === "incompatible-spec"
            ? plugin.status
            : "invalid-manifest",
        reason: plugin.statusReason,
        applied: [],
        pending: [],
      });
      continue;
    }
    if (plugin.manifest?.storage?.mode !== "dedicated") continue; // kv or none: nothing to migrate
    results.push(
      await migrateOne(backend, plugin, options.dryRun === true, clock, options.onProgress),
    );
  }
  return results;
}

async function migrateOne(
  backend: StoreBackend,
  plugin: DiscoveredPlugin,
  dryRun: boolean,
  clock: Clock,
  onProgress: ((message: string) => void) | undefined,
): Promise<PluginMigrationResult> {
  const storage = plugin.manifest?.storage;
  if (storage?.mode !== "dedicated") throw new Error("unreachable: not dedicated storage");
  const prefix = pluginTablePrefix(plugin.id);
  const applied: { version: number; name: string }[] = [];
  let pending: { version: number; name: string }[] = [];
  try {
    const files = loadPluginMigrations(plugin.path, storage.migrations);
    const current = highestVersion(
      await readLedger(backend, backend.kysely, { scope: "plugin", ownerId: plugin.id }),
    );
    const due = files.filter((file) => file.version > current);
    pending = due.map((file) => ({ version: file.version, name: file.name }));
    const ctx = { pluginId: plugin.id, prefix, tables: new Set(storage.tables) };
    for (const file of due) {
      const sql = rewritePluginMigration(file.sql, { ...ctx, file: basename(file.file) });
      if (dryRun) {
        applied.push({ version: file.version, name: file.name });
        continue;
      }
      onProgress?.(`migrating plugin ${plugin.id}: ${file.name}`);
      await applyMigration(backend, backend.kysely, {
        scope: "plugin",
        ownerId: plugin.id,
        file,
        sql,
        appliedAt: clock.now(),
        mirrorUserVersion: false,
        verify: async (tx) => {
          const problems = checkNamingRules(await backend.introspect(tx), {
            tablePrefixes: [prefix],
            only: [prefix],
          });
          if (problems.length > 0) {
            throw new PluginForbiddenSqlError(
              "naming",
              `Plugin "${plugin.id}", ${file.name}: ${PLUGIN_SQL_RULES.naming}: ${problems.map((p) => p.message).join("; ")} [rule: naming].`,
              { details: { pluginId: plugin.id, problems } },
            );
          }
        },
      });
      applied.push({ version: file.version, name: file.name });
      pending = pending.filter((p) => p.version !== file.version);
    }
    return {
      pluginId: plugin.id,
      status: "enabled",
      reason: null,
      applied,
      pending: dryRun ? pending : [],
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { pluginId: plugin.id, status: "load-error", reason, applied, pending };
  }
}

/** A plugin's migration files, as its manifest lists them, numbered 001… without gaps. */
function loadPluginMigrations(dir: string, listed: readonly string[]): MigrationFile[] {
  const files = listed.map((relative) => {
    const file = join(dir, relative);
    const name = basename(file);
    const match = MIGRATION_NAME.exec(name);
    if (!match) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migration "${relative}" is not named NNN_snake_case.sql.`,
      );
    }
    if (!existsSync(file)) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migration "${relative}" does not exist in ${dir}.`,
      );
    }
    return {
      version: Number(match[1]),
      name: name.slice(0, -4),
      description: (match[2] ?? "").replace(/_/g, " "),
      file,
      sql: readFileSync(file, "utf8"),
    };
  });
  files.sort((a, b) => a.version - b.version);
  files.forEach((file, index) => {
    if (file.version !== index + 1) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migrations must be numbered 001, 002, … without gaps; found ${file.name}.`,
      );
    }
  });
  return files;
}
