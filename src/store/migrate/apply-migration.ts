import type { Kysely } from "kysely";
import type { StoreBackend } from "../dialects/backend.js";
import type { KernelDatabase } from "../schema.js";
import type { MigrationFile } from "./types.js";

/** One migration to apply and record. */
export interface MigrationStep {
  readonly scope: "kernel" | "plugin";
  readonly ownerId: string;
  readonly file: MigrationFile;
  /** The SQL actually run (for plugins: after prefix injection). */
  readonly sql: string;
  readonly appliedAt: number;
  /** Kernel migrations also set the user_version mirror. */
  readonly mirrorUserVersion: boolean;
  /**
   * Runs inside the transaction before the SQL; the check it returns runs after the SQL, before
   * commit. A throw from either rolls everything back.
   */
  readonly guard?: (
    tx: Kysely<KernelDatabase>,
  ) => Promise<(tx: Kysely<KernelDatabase>) => Promise<void>>;
}

/**
 * Applies one migration in its own transaction: re-checks the ledger under the transaction's
 * lock (another process may have just applied it), runs the SQL, records the ledger row, mirrors
 * the user_version, commits. Returns false when it was already applied.
 */
export async function applyMigration(
  backend: StoreBackend,
  db: Kysely<KernelDatabase>,
  step: MigrationStep,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    if (await backend.tableExists(tx, "config_schema_versions")) {
      const existing = await tx
        .selectFrom("config_schema_versions")
        .select("version")
        .where("scope", "=", step.scope)
        .where("owner_id", "=", step.ownerId)
        .where("version", "=", step.file.version)
        .executeTakeFirst();
      if (existing) return false;
    }
    const check = step.guard ? await step.guard(tx) : undefined;
    await backend.executeScript(tx, step.sql);
    await tx
      .insertInto("config_schema_versions")
      .values({
        scope: step.scope,
        owner_id: step.ownerId,
        version: step.file.version,
        description: step.file.description,
        applied_at: step.appliedAt,
      })
      .execute();
    if (step.mirrorUserVersion) await backend.writeUserVersion(tx, step.file.version);
    if (check) await check(tx);
    return true;
  });
}
