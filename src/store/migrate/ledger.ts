import type { Kysely } from "kysely";
import type { StoreBackend } from "../dialects/backend.js";
import type { KernelDatabase } from "../schema.js";
import type { LedgerEntry } from "./types.js";

/** The migration ledger; empty before the first kernel migration created it. */
export async function readLedger(
  backend: StoreBackend,
  db: Kysely<KernelDatabase>,
  filter: { scope?: "kernel" | "plugin"; ownerId?: string } = {},
): Promise<LedgerEntry[]> {
  if (!(await backend.tableExists(db, "config_schema_versions"))) return [];
  let query = db.selectFrom("config_schema_versions").selectAll();
  if (filter.scope) query = query.where("scope", "=", filter.scope);
  if (filter.ownerId) query = query.where("owner_id", "=", filter.ownerId);
  const rows = await query.orderBy("scope").orderBy("owner_id").orderBy("version").execute();
  return rows.map((row) => ({
    scope: row.scope,
    ownerId: row.owner_id,
    version: Number(row.version),
    description: row.description,
    appliedAt: Number(row.applied_at),
  }));
}

/** Highest applied version for one owner (0 when none). */
export function highestVersion(entries: readonly LedgerEntry[]): number {
  return entries.reduce((max, entry) => Math.max(max, entry.version), 0);
}
