import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { KeelError } from "../../core/index.js";

/**
 * Writes a consistent copy of an open SQLite database to `dest` (`VACUUM INTO`: a transaction-
 * consistent snapshot that includes what is still in the WAL, compacted). Written to a temporary
 * name and renamed, so a crash never leaves a half-written backup under the final name.
 * `prepare` may edit the copy (e.g. empty the scan zone) before it takes its final name.
 */
export function copySqliteDatabase(
  database: BetterSqlite3.Database,
  dest: string,
  prepare?: (copy: string) => void,
): void {
  const temporary = `${dest}.partial-${process.pid}`;
  try {
    mkdirSync(dirname(dest), { recursive: true });
    rmSync(temporary, { force: true });
    database.prepare("VACUUM INTO ?").run(temporary);
    prepare?.(temporary);
    renameSync(temporary, dest);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new KeelError(
      "STORE_BACKUP_FAILED",
      `Could not write the backup ${dest}: ${(error as Error).message}.`,
      {
        cause: error,
        details: { dest },
        hint: "Check that the backups folder is writable and the disk has room, or pass another --out.",
      },
    );
  }
}

/** `base.db`, or `base-2.db`, `base-3.db`… so an existing backup is never overwritten. */
export function freshBackupPath(path: string): string {
  if (!existsSync(path)) return path;
  const stem = path.replace(/\.db$/, "");
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${n}.db`;
    if (!existsSync(candidate)) return candidate;
  }
}
