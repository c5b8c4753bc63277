import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../support/postgres.js";
import { createMigratedDatabase, migratedSqliteFile } from "../support/templates.js";

/** One dialect as the store conformance suite drives it. */
export interface DialectHarness {
  readonly dialect: "sqlite" | "postgres";
  /** A new, empty database (what `--db` takes) and a folder for backups and fixtures. */
  fresh(label: string): Promise<{ db: string; dir: string }>;
  /**
   * As `fresh`, but already at the latest kernel schema: a copy of the migrated template
   * (test/support/templates.ts), for cases whose subject is not migrating. Migrating a Postgres
   * database from nothing costs ~2 s of wall time here; a copy, a quarter of a second.
   */
  migrated(label: string): Promise<{ db: string; dir: string }>;
  /** Drops every database and folder made by `fresh`. */
  cleanup(): Promise<void>;
}

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `keel-store-${label}-`));
}

export function sqliteHarness(): DialectHarness {
  const dirs: string[] = [];
  return {
    dialect: "sqlite",
    async fresh(label) {
      const dir = tempDir(label);
      dirs.push(dir);
      return { db: join(dir, ".keel", "keel.db"), dir };
    },
    async migrated(label) {
      const made = await this.fresh(label);
      await migratedSqliteFile(made.db);
      return made;
    },
    async cleanup() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresHarness(): DialectHarness {
  const drops: (() => Promise<void>)[] = [];
  const dirs: string[] = [];
  /** Keeps `database` for cleanup, with a folder of its own. */
  const keep = (label: string, database: Awaited<ReturnType<typeof createTestDatabase>>) => {
    drops.push(database.drop);
    const dir = tempDir(label);
    dirs.push(dir);
    return { db: database.url, dir };
  };
  return {
    dialect: "postgres",
    fresh: async (label) => keep(label, await createTestDatabase(`store_${label}`)),
    migrated: async (label) => keep(label, await createMigratedDatabase(`store_${label}`)),
    async cleanup() {
      for (const drop of drops) await drop().catch(() => {});
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
