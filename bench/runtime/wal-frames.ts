/**
 * What a ledgered call writes, page by page: the frames its commits append to SQLite's WAL,
 * each attributed to the table or index (b-tree) that owns its page (`dbstat`). Checkpoints are
 * held off while it counts, so every frame of the measured calls is still in the log.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type Database from "better-sqlite3";

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** Per-b-tree page writes (WAL frames) and commits between two points of a WAL file. */
export interface WalFrames {
  frames: number;
  commits: number;
  byTree: Map<string, number>;
}

function walSize(path: string): number {
  const fd = openSync(path, "r");
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs `fn` with automatic checkpoints off and returns the WAL frames it appended, by owner.
 * `dbPath` is the database file (its log is `<dbPath>-wal`).
 */
export async function walFramesOf(
  db: Database.Database,
  dbPath: string,
  fn: () => Promise<unknown>,
): Promise<WalFrames> {
  const walPath = `${dbPath}-wal`;
  db.pragma("wal_checkpoint(TRUNCATE)");
  const autocheckpoint = db.pragma("wal_autocheckpoint", { simple: true }) as number;
  db.pragma("wal_autocheckpoint = 0");
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const start = Math.max(walSize(walPath), WAL_HEADER);
  try {
    await fn();
  } finally {
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
  const owners = new Map<number, string>();
  for (const row of db.prepare("SELECT name, pageno FROM dbstat").iterate() as Iterable<{
    name: string;
    pageno: number;
  }>) {
    owners.set(row.pageno, row.name);
  }
  const end = walSize(walPath);
  const frameSize = FRAME_HEADER + pageSize;
  const header = Buffer.alloc(FRAME_HEADER);
  const byTree = new Map<string, number>();
  let frames = 0;
  let commits = 0;
  const fd = openSync(walPath, "r");
  try {
    for (let at = start; at + frameSize <= end; at += frameSize) {
      readSync(fd, header, 0, FRAME_HEADER, at);
      const page = header.readUInt32BE(0);
      if (header.readUInt32BE(4) !== 0) commits++;
      frames++;
      const owner = owners.get(page) ?? (page === 1 ? "(header page)" : "(free)");
      byTree.set(owner, (byTree.get(owner) ?? 0) + 1);
    }
  } finally {
    closeSync(fd);
  }
  return { frames, commits, byTree };
}
