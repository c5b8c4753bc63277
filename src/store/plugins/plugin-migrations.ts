import { basename } from "node:path";
import type { Kysely } from "kysely";
import { type Clock, compareCodePoints, KeelError, systemClock } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { applyMigration } from "../migrate/apply-migration.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import type { MigrationFile, PluginMigrationResult } from "../migrate/types.js";
import type { KernelDatabase } from "../schema.js";
import type { DiscoveredPlugin } from "./discover.js";
import { PluginForbiddenSqlError } from "./errors.js";
import { type PluginFailure, readPluginFailures, recordPluginOutcomes } from "./plugin-failures.js";
import { pluginTablePrefix } from "./plugin-id.js";
import { loadPluginMigrations } from "./plugin-migration-files.js";
import { rewritePluginMigration } from "./plugin-migration-sql.js";
import { ownsTable, type PluginNamespace } from "./plugin-namespace.js";
import { pluginMigrationGuard } from "./plugin-schema-guard.js";

export interface PluginMigrateOptions {
  /** Only this plugin (`keel db migrate --plugin <id>`). */
  readonly only?: string | undefined;
  /** Validate and rewrite, apply nothing (and take no lock). */
  readonly dryRun?: boolean | undefined;
  readonly clock?: Clock | undefined;
  readonly onProgress?: ((message: string) => void) | undefined;
}

type Step = { version: number; name: string };

/** What one plugin has due, validated and rewritten, or why it cannot migrate. */
interface Plan {
  readonly plugin: DiscoveredPlugin;
  readonly namespace: PluginNamespace;
  readonly due: readonly { file: MigrationFile; sql: string }[];
  readonly failure: string | null;
}

/**
 * Applies plugins' migrations after the kernel's, in code-point order of plugin id. Each
 * migration is validated and prefix-injected first (without a lock); then, when anything is due,
 * all of them apply under the kernel's migration lock (Postgres advisory lock, SQLite lock file),
 * so two processes starting together never both apply one. Each migration runs in its own
 * transaction with its ledger row (`scope = 'plugin'`), guarded by the schema backstop and the
 * naming check. A plugin whose migration fails is reported `load-error` and left as it was; the
 * others carry on.
 */
export async function migratePlugins(
  backend: StoreBackend,
  plugins: readonly DiscoveredPlugin[],
  options: PluginMigrateOptions = {},
): Promise<PluginMigrationResult[]> {
  const clock = options.clock ?? systemClock;
  const selected = [...plugins]
    .filter((plugin) => options.only === undefined || plugin.id === options.only)
    .sort((a, b) => compareCodePoints(a.id, b.id));
  if (options.only !== undefined && selected.length === 0) {
    throw new KeelError("NOT_FOUND", `No plugin "${options.only}" was found.`, {
      details: { pluginId: options.only },
      hint: "Plugins live in .keel/plugins/<name>/plugin.json; `keel db migrate --status` lists them.",
    });
  }
  const entries: (PluginMigrationResult | Plan)[] = [];
  for (const plugin of selected) {
    if (plugin.status === "disabled") continue; // the user switched it off: leave it alone
    if (plugin.status !== "enabled") {
      entries.push({
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
    entries.push(await plan(backend, plugin));
  }
  const plans = entries.filter((entry): entry is Plan => "due" in entry);
  const results = (outcomes: Map<Plan, PluginMigrationResult>) =>
    entries.map((entry) => ("due" in entry ? (outcomes.get(entry) ?? planned(entry)) : entry));
  if (options.dryRun) {
    // Nothing runs, so a failure can only be known from the last real attempt.
    const failures = await readPluginFailures(backend);
    return results(new Map(plans.map((p) => [p, planned(p, failures.get(p.plugin.id))])));
  }
  const apply = plans.some((p) => p.failure === null && p.due.length > 0);
  const run = async (db: Kysely<KernelDatabase>) => {
    const outcomes = new Map<Plan, PluginMigrationResult>();
    for (const p of plans)
      outcomes.set(p, apply ? await applyPlan(backend, db, p, clock, options) : planned(p));
    const all = results(outcomes);
    await recordPluginOutcomes(backend, db, all, clock);
    return all;
  };
  return apply ? backend.withMigrationLock(run) : run(backend.kysely);
}

/** Reads, validates and rewrites what a plugin has due; a problem becomes its failure. */
async function plan(backend: StoreBackend, plugin: DiscoveredPlugin): Promise<Plan> {
  const storage = plugin.manifest?.storage;
  const namespace: PluginNamespace = {
    pluginId: plugin.id,
    prefix: pluginTablePrefix(plugin.id),
    tables: new Set(storage?.mode === "dedicated" ? storage.tables : []),
  };
  try {
    if (storage?.mode !== "dedicated") throw new Error("unreachable: not dedicated storage");
    const files = loadPluginMigrations(plugin.path, storage.migrations);
    const current = highestVersion(
      await readLedger(backend, backend.kysely, { scope: "plugin", ownerId: plugin.id }),
    );
    const due = files
      .filter((file) => file.version > current)
      .map((file) => ({
        file,
        sql: rewritePluginMigration(file.sql, { ...namespace, file: basename(file.file) }),
      }));
    return { plugin, namespace, due, failure: null };
  } catch (error) {
    return { plugin, namespace, due: [], failure: messageOf(error) };
  }
}

/**
 * A plan as a result without applying it (dry run, or nothing due). `recorded`: the failure of
 * the last real attempt, which a dry run reports as the plugin's state.
 */
function planned(p: Plan, recorded?: PluginFailure): PluginMigrationResult {
  const steps = p.due.map(({ file }) => step(file));
  const failure =
    p.failure ?? (recorded ? `its last migration attempt failed: ${recorded.reason}` : null);
  return {
    pluginId: p.plugin.id,
    status: failure === null ? "enabled" : "load-error",
    reason: failure,
    applied: failure === null ? steps : [],
    pending: steps,
  };
}

/** Applies a plan under the lock; a migration another process applied meanwhile is skipped. */
async function applyPlan(
  backend: StoreBackend,
  db: Kysely<KernelDatabase>,
  p: Plan,
  clock: Clock,
  options: PluginMigrateOptions,
): Promise<PluginMigrationResult> {
  const applied: Step[] = [];
  let pending = p.due.map(({ file }) => step(file));
  if (p.failure !== null) return planned(p);
  let current: MigrationFile | undefined;
  try {
    for (const { file, sql } of p.due) {
      current = file;
      options.onProgress?.(`migrating plugin ${p.plugin.id}: ${file.name}`);
      const done = await applyMigration(backend, db, {
        scope: "plugin",
        ownerId: p.plugin.id,
        file,
        sql,
        appliedAt: clock.now(),
        mirrorUserVersion: false,
        guard: pluginMigrationGuard(backend, {
          pluginId: p.plugin.id,
          prefix: p.namespace.prefix,
          file: file.name,
          owns: (table) => ownsTable(p.namespace, table),
        }),
      });
      if (done) applied.push(step(file));
      pending = pending.filter((s) => s.version !== file.version);
    }
    return { pluginId: p.plugin.id, status: "enabled", reason: null, applied, pending: [] };
  } catch (error) {
    // A refusal names its file already; an engine error does not.
    const message = messageOf(error);
    const reason =
      error instanceof PluginForbiddenSqlError || current === undefined
        ? message
        : `${current.name} failed and was rolled back: ${message}`;
    return { pluginId: p.plugin.id, status: "load-error", reason, applied, pending };
  }
}

function step(file: MigrationFile): Step {
  return { version: file.version, name: file.name };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
