import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { KeelError } from "../../../core/index.js";

const MAGIC = "SQLite format 3\u0000";
const HEADER_BYTES = 100;

/**
 * Looks at a database file before SQLite touches it, so that a file that is not a database, or
 * one cut short, is refused with a clear message and left byte-for-byte as it was (opening it in
 * WAL mode would otherwise rewrite its header).
 *
 * An absent or empty file is fine: SQLite creates the database in it.
 */
export function checkSqliteFile(path: string): void {
  if (!existsSync(path)) return;
  const size = statSync(path).size;
  if (size === 0) return;
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(path, "r");
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (read < MAGIC.length || header.toString("latin1", 0, MAGIC.length) !== MAGIC) {
    throw new KeelError("STORE_NOT_A_DATABASE", `${path} is not a SQLite database.`, {
      details: { path },
      hint: "Point --db (or KEEL_DATABASE_URL) at a Keel database, or move this file away; Keel did not modify it.",
    });
  }
  if (read < HEADER_BYTES) throw truncated(path, size, HEADER_BYTES);
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw corrupt(path, `its header gives an impossible page size (${rawPageSize})`);
  }
  // The in-header page count is valid only when the change counter matches "version-valid-for".
  const headerPagesValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  const pages = header.readUInt32BE(28);
  const walSize = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0;
  if (headerPagesValid && walSize === 0 && size < pages * pageSize) {
    throw truncated(path, size, pages * pageSize);
  }
  if (size % pageSize !== 0 && walSize === 0) throw truncated(path, size, pages * pageSize);
}

function truncated(path: string, size: number, expected: number): KeelError {
  return new KeelError(
    "STORE_CORRUPT",
    `${path} is truncated: ${size} bytes on disk, its header says ${expected}.`,
    {
      details: { path, size, expected },
      hint: "Restore a backup with `keel db restore <backup>` (backups are in .keel/backups/); Keel did not modify the file.",
    },
  );
}

function corrupt(path: string, why: string): KeelError {
  return new KeelError("STORE_CORRUPT", `${path} is corrupt: ${why}.`, {
    details: { path },
    hint: "Restore a backup with `keel db restore <backup>` (backups are in .keel/backups/); Keel did not modify the file.",
  });
}
