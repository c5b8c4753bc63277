import { join } from "node:path";
import type { StoreBackend } from "../dialects/backend.js";
import { copySqliteDatabase, freshBackupPath } from "./sqlite-copy.js";

/** Backups live in `<.keel>/backups/`. */
export function backupsDir(keelDir: string): string {
  return join(keelDir, "backups");
}

/**
 * The pre-migrate backup (SQLite): a full copy of the database as it is at version `fromVersion`,
 * at `.keel/backups/keel-pre-migrate-v<fromVersion>.db` (restoring it gives you that version).
 * Nothing to protect in a new database (version 0), and Postgres relies on transactional DDL and
 * the server's own backups: both return null.
 */
export async function writePreMigrateBackup(
  backend: StoreBackend,
  fromVersion: number,
): Promise<string | null> {
  if (fromVersion === 0 || backend.native.dialect !== "sqlite") return null;
  if (backend.location.dialect !== "sqlite" || backend.location.path === ":memory:") return null;
  const dest = freshBackupPath(
    join(backupsDir(backend.location.keelDir), `keel-pre-migrate-v${fromVersion}.db`),
  );
  copySqliteDatabase(backend.native.database, dest);
  return dest;
}
