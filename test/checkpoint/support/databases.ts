/**
 * Real databases for the saver suites: a migrated SQLite file in a temp dir, or a fresh Postgres
 * database per file, each copied from the migrated template (test/support/templates.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../../src/store/index.js";
import { createMigratedDatabase, migratedSqliteFile } from "../../support/templates.js";

export interface TestStore {
  store: Store;
  /** `--db` value that reopens the same database (a file path or a URL). */
  db: string;
  cleanup(): Promise<void>;
}

/** A migrated SQLite store in a fresh temp directory. */
export async function sqliteTestStore(
  options: { synchronous?: "NORMAL" | "FULL" } = {},
): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), "keel-ck-"));
  const db = join(dir, "keel.db");
  await migratedSqliteFile(db);
  const store = await openStore({ db, backupBeforeMigrate: false, ...options });
  return {
    store,
    db,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated Postgres store on a fresh database (call only when postgresAvailable()). */
export async function postgresTestStore(label: string): Promise<TestStore> {
  const database = await createMigratedDatabase(label);
  const store = await openStore({ db: database.url, poolSize: 4 });
  return {
    store,
    db: database.url,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
}
