import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../support/postgres.js";

/** One dialect as the store conformance suite drives it. */
export interface DialectHarness {
  readonly dialect: "sqlite" | "postgres";
  /** A new, empty database (what `--db` takes) and a folder for backups and fixtures. */
  fresh(label: string): Promise<{ db: string; dir: string }>;
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
    async cleanup() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresHarness(): DialectHarness {
  const drops: (() => Promise<void>)[] = [];
  const dirs: string[] = [];
  return {
    dialect: "postgres",
    async fresh(label) {
      const database = await createTestDatabase(`store_${label}`);
      drops.push(database.drop);
      const dir = tempDir(label);
      dirs.push(dir);
      return { db: database.url, dir };
    },
    async cleanup() {
      for (const drop of drops) await drop().catch(() => {});
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
