import type { Kysely } from "kysely";
import type { Clock } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import type { PluginMigrationResult } from "../migrate/types.js";
import type { KernelDatabase } from "../schema.js";

/** A plugin's last failed migration, as `state_plugin_failures` records it. */
export interface PluginFailure {
  readonly reason: string;
  readonly failedAt: number;
}

/**
 * The plugins recorded as failing (`state_plugin_failures`); empty on a database whose kernel
 * schema predates the table.
 */
export async function readPluginFailures(
  backend: StoreBackend,
  db: Kysely<KernelDatabase> = backend.kysely,
): Promise<Map<string, PluginFailure>> {
  if (!(await backend.tableExists(db, "state_plugin_failures"))) return new Map();
  const rows = await db.selectFrom("state_plugin_failures").selectAll().execute();
  return new Map(
    rows.map((row) => [row.id, { reason: row.reason, failedAt: Number(row.failed_at) }]),
  );
}

/**
 * Makes the outcome of a migrate pass durable: a plugin that ended in `load-error` gets (or
 * keeps, with the new reason) its failure row; one that ended `enabled` loses it.
 */
export async function recordPluginOutcomes(
  backend: StoreBackend,
  db: Kysely<KernelDatabase>,
  results: readonly PluginMigrationResult[],
  clock: Clock,
): Promise<void> {
  if (!(await backend.tableExists(db, "state_plugin_failures"))) return;
  // Only changes are written: a healthy open must not take the write lock for nothing.
  const recorded = await readPluginFailures(backend, db);
  for (const result of results) {
    if (result.status === "load-error" && recorded.get(result.pluginId)?.reason !== result.reason) {
      const row = { id: result.pluginId, reason: result.reason ?? "", failed_at: clock.now() };
      await db
        .insertInto("state_plugin_failures")
        .values(row)
        .onConflict((conflict) =>
          conflict.column("id").doUpdateSet({ reason: row.reason, failed_at: row.failed_at }),
        )
        .execute();
    } else if (result.status === "enabled" && recorded.has(result.pluginId)) {
      await db.deleteFrom("state_plugin_failures").where("id", "=", result.pluginId).execute();
    }
  }
}
