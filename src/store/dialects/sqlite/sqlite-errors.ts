import { KeelError } from "../../../core/index.js";

/** The error code better-sqlite3 attaches (`SQLITE_CORRUPT`, `SQLITE_READONLY_DBMOVED`…). */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
  }
  return undefined;
}

/**
 * Turns an engine failure met while opening or migrating a SQLite file into a KeelError that
 * says what to do; returns undefined for failures that are not about the file itself.
 */
export function sqliteFileError(error: unknown, path: string): KeelError | undefined {
  const code = sqliteCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (code === undefined) {
    const errno = (error as { code?: unknown } | null)?.code;
    if (errno === "EACCES" || errno === "EROFS" || errno === "EPERM")
      return readOnly(path, reason, error);
    return undefined;
  }
  if (code === "SQLITE_NOTADB") {
    return new KeelError("STORE_NOT_A_DATABASE", `${path} is not a SQLite database (${reason}).`, {
      cause: error,
      details: { path },
      hint: "Point --db at a Keel database, or move this file away; Keel did not modify it.",
    });
  }
  if (code.startsWith("SQLITE_CORRUPT")) {
    return new KeelError("STORE_CORRUPT", `${path} is corrupt (${reason}).`, {
      cause: error,
      details: { path },
      hint: "Restore a backup with `keel db restore <backup>` (backups are in .keel/backups/).",
    });
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new KeelError("STORE_BUSY", `${path} stayed locked by another writer (${reason}).`, {
      cause: error,
      details: { path },
      hint: "Another Keel process holds the write lock; retry, or stop it. SQLite has one writer at a time.",
    });
  }
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code === "SQLITE_PERM"
  ) {
    return readOnly(path, reason, error);
  }
  return undefined;
}

function readOnly(path: string, reason: string, cause: unknown): KeelError {
  return new KeelError("STORE_READ_ONLY", `Cannot write the database at ${path} (${reason}).`, {
    cause,
    details: { path },
    hint: "SQLite in WAL mode needs write access to the file and its directory (for -wal and -shm files): fix the permissions or choose another location with --db.",
  });
}
