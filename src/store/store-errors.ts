import { KeelError, registerErrorTranslator } from "../core/index.js";
import { sqliteCode } from "./dialects/sqlite/sqlite-errors.js";

/**
 * A SQLite failure met after the database opened (a run's commit, an audit read) as the
 * STORE_* error that says what to do; undefined for errors that are not about the database
 * file (a constraint, a bad statement: those are bugs or callers' errors, reported as they are).
 */
export function storeErrorOf(error: unknown): KeelError | undefined {
  const code = sqliteCode(error);
  if (code === undefined) return undefined;
  const reason = error instanceof Error ? error.message : code;
  if (code === "SQLITE_FULL") {
    return new KeelError("STORE_FULL", `The database cannot grow: ${reason}.`, {
      cause: error,
      details: { sqlite: code },
      hint: "Free disk space (or raise the volume's quota), then retry: a run resumes from its last checkpoint (`keel runs resume <run>`).",
    });
  }
  if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_PERM") {
    return new KeelError("STORE_READ_ONLY", `The database cannot be written: ${reason}.`, {
      cause: error,
      details: { sqlite: code },
      hint: "Give Keel write access to the database file and its directory (for -wal and -shm), or choose another --db.",
    });
  }
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return new KeelError("STORE_CORRUPT", `The database is damaged: ${reason}.`, {
      cause: error,
      details: { sqlite: code },
      hint: "Run `keel doctor` to see what is damaged, then restore a backup (`keel db restore <backup> --force`; backups are in .keel/backups/).",
    });
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new KeelError("STORE_IO_FAILED", `Reading or writing the database failed: ${reason}.`, {
      cause: error,
      details: { sqlite: code },
      hint: "Check the disk and the file system (dmesg, df), then retry.",
    });
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new KeelError("STORE_BUSY", `The database stayed locked by another writer: ${reason}.`, {
      cause: error,
      details: { sqlite: code },
      hint: "Another Keel process holds the write lock; retry, or stop it. SQLite has one writer at a time.",
    });
  }
  return undefined;
}

registerErrorTranslator(storeErrorOf);
