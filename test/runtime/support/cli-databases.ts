import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMigratedDatabase, migratedSqliteFile } from "../../support/templates.js";

/**
 * Databases for a CLI suite that runs on both dialects, named as `--db` takes them. SQLite: a
 * fresh migrated file per `fresh()`. Postgres: one migrated database per test file, made on the
 * first `fresh()` and handed to every test of the file, so its tests look only at their own runs.
 */
export interface CliDatabases {
  readonly dialect: "sqlite" | "postgres";
  fresh(): Promise<string>;
  cleanup(): Promise<void>;
}

export function sqliteCliDatabases(label: string): CliDatabases {
  const dir = mkdtempSync(join(tmpdir(), `keel-${label}-`));
  let count = 0;
  return {
    dialect: "sqlite",
    async fresh() {
      const db = join(dir, `${++count}`, "keel.db");
      await migratedSqliteFile(db);
      return db;
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresCliDatabases(label: string): CliDatabases {
  let database: ReturnType<typeof createMigratedDatabase> | undefined;
  return {
    dialect: "postgres",
    async fresh() {
      database ??= createMigratedDatabase(label);
      return (await database).url;
    },
    async cleanup() {
      if (database) await (await database).drop();
    },
  };
}
