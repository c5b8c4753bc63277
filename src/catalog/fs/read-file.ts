import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/** Files larger than this are not read (a 50 MB "markdown" file is not a skill). */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Why a file is not a node even though an adapter claimed it. */
export type UnreadableReason =
  | "vanished"
  | "permission-denied"
  | "too-large"
  | "binary"
  | "invalid-utf8"
  | "io-error";

export type ReadOutcome =
  | { readonly ok: true; readonly text: string; readonly modifiedAt: number; readonly size: number }
  | {
      readonly ok: false;
      readonly reason: UnreadableReason;
      readonly message: string;
      /** The file's stamp when it could be taken (the file exists but is not text). */
      readonly stamp?: FileStamp;
    };

/** A file's modification time (ms) and size, or null when it is gone. */
export interface FileStamp {
  readonly modifiedAt: number;
  readonly size: number;
}

/** Stats a file; null when it no longer exists or cannot be statted. */
export function stampOf(path: string): FileStamp | null {
  try {
    const stat = statSync(path);
    return { modifiedAt: Math.trunc(stat.mtimeMs), size: stat.size };
  } catch {
    return null;
  }
}

/**
 * Reads a file as UTF-8 text, refusing what is not: a file gone since the walk, unreadable, over
 * `maxBytes`, binary (a NUL byte in its first 8 KB) or not valid UTF-8. Never throws.
 */
export function readTextFile(path: string, maxBytes = DEFAULT_MAX_FILE_BYTES): ReadOutcome {
  let size: number;
  let modifiedAt: number;
  let bytes: Buffer;
  let fd: number | undefined;
  try {
    // One open, one fstat, reads, one close: no separate stat by path (a 10,000-file scan
    // makes 10,000 fewer system calls).
    fd = openSync(path, "r");
    const stat = fstatSync(fd);
    size = stat.size;
    modifiedAt = Math.trunc(stat.mtimeMs);
    if (size > maxBytes) {
      return {
        ok: false,
        reason: "too-large",
        stamp: { modifiedAt, size },
        message: `is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} a catalog file may be; it was not read`,
      };
    }
    bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(fd, bytes, filled, size - filled, null);
      if (read === 0) break;
      filled += read;
    }
    // A file truncated since the fstat is read as it now is.
    if (filled < size) bytes = bytes.subarray(0, filled);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return { ok: false, reason: "vanished", message: "was deleted while the scan ran" };
    }
    if (code === "EACCES" || code === "EPERM") {
      return {
        ok: false,
        reason: "permission-denied",
        message: "cannot be read (permission denied); fix its permissions or ignore it",
      };
    }
    return {
      ok: false,
      reason: "io-error",
      message: `could not be read: ${(error as Error).message}`,
    };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    return {
      ok: false,
      reason: "binary",
      stamp: { modifiedAt, size },
      message: "is a binary file, not markdown text; rename it or ignore it",
    };
  }
  if (!isUtf8(bytes)) {
    return {
      ok: false,
      reason: "invalid-utf8",
      stamp: { modifiedAt, size },
      message: "is not valid UTF-8 text; re-save it as UTF-8",
    };
  }
  return { ok: true, text: bytes.toString("utf8"), modifiedAt, size };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${bytes} bytes`;
}
