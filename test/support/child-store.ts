/**
 * What a bundled child script (child-bundle.ts) needs to reach its parent's database and follow
 * its lead: the store, opened with the migrations the parent points to (bundled, the script
 * cannot find them next to the store's source), and the parent's `go` line on stdin.
 */
import { createInterface } from "node:readline";
import { openStore, type Store } from "../../src/store/index.js";

/** Opens `db` (a path or a Postgres URL) with the migrations in `KEEL_MIGRATIONS_DIR`. */
export function openChildStore(db: string): Promise<Store> {
  return openStore({
    db,
    backupBeforeMigrate: false,
    migrationsDir: process.env.KEEL_MIGRATIONS_DIR,
  });
}

/**
 * The parent's lead on stdin: `go` resolves when it writes the line `go`; `close()` stops reading
 * stdin (a script that may never be told to go calls it before it ends, or stdin keeps it alive).
 */
export function parentSignal(): { go: Promise<void>; close: () => void } {
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) =>
    lines.on("line", (line) => {
      if (line === "go") resolve();
    }),
  );
  return { go, close: () => lines.close() };
}
