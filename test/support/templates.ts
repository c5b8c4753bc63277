/**
 * Migrated template databases: a test that needs a store at the latest schema copies one instead
 * of running every migration again. A migration costs ~25 DDL transactions (seconds of fsync on
 * Postgres, a second of wall time on a loaded SQLite box); a copy costs one file copy or one
 * `CREATE DATABASE … TEMPLATE`.
 *
 * A template is named after a hash of the migration files and of the code that applies them, so a
 * changed migration builds a new template (never a stale one), and worktrees with different
 * migrations sharing one Postgres server never share a template. Tests about migrating itself
 * (a fresh, empty database) keep using `createTestDatabase` / an empty file.
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openStore } from "../../src/store/index.js";
import { createTestDatabase, relaxCommits, TEST_DATABASE_URL } from "./postgres.js";

const storeDir = fileURLToPath(new URL("../../src/store/", import.meta.url));

/** A hash of what decides a migrated schema: the dialect's migrations and the migration code. */
function schemaHash(dialect: "sqlite" | "postgres"): string {
  const hash = createHash("sha256");
  for (const dir of [join(storeDir, "migrations", dialect), join(storeDir, "migrate")]) {
    for (const name of readdirSync(dir).sort()) {
      hash.update(name);
      hash.update(readFileSync(join(dir, name)));
    }
  }
  return hash.digest("hex").slice(0, 16);
}

let sqliteTemplate: Promise<string> | undefined;

/** The path of the migrated SQLite template, built on first use (one per schema, shared by runs). */
function sqliteTemplatePath(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const path = join(tmpdir(), "keel-test-templates", `sqlite-${schemaHash("sqlite")}.db`);
    if (existsSync(path)) return path;
    mkdirSync(dirname(path), { recursive: true });
    // Built under a private name and renamed: a concurrent builder (another worker) never sees a
    // half-migrated file, and two builders racing both produce a complete one.
    const building = `${path}.${process.pid}.building`;
    const store = await openStore({ db: building, backupBeforeMigrate: false });
    await store.close();
    renameSync(building, path);
    // The migration's lock sidecar (see sqlite-backend.ts) is not part of the database.
    rmSync(`${building}-migrate-lock`, { force: true });
    return path;
  })();
  return sqliteTemplate;
}

/**
 * Puts a migrated SQLite database at `path` (creating its folder), as `openStore` would leave a
 * fresh file; open it with `openStore({ db: path })` and no migration runs.
 *
 * @example
 * const db = join(dir, ".keel", "keel.db");
 * await migratedSqliteFile(db);
 * const store = await openStore({ db });
 */
export async function migratedSqliteFile(path: string): Promise<void> {
  const template = await sqliteTemplatePath();
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(template, path);
}

let postgresTemplate: Promise<string> | undefined;

/**
 * The name of the migrated Postgres template database, built on first use under an advisory lock
 * (one builder across every worker and worktree), then closed to connections so that
 * `CREATE DATABASE … TEMPLATE` never meets a session in it.
 */
export function postgresTemplateName(): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `keel_tpl_${schemaHash("postgres")}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query("select pg_advisory_lock(hashtext('keel test templates'))");
      const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`drop database if exists "${building}" with (force)`);
        await admin.query(`create database "${building}"`);
        await relaxCommits(admin, building);
        const url = new URL(TEST_DATABASE_URL);
        url.pathname = `/${building}`;
        const store = await openStore({ db: url.toString(), poolSize: 1 });
        await store.close();
        await admin.query(`alter database "${building}" rename to "${name}"`);
        await admin.query(`alter database "${name}" with allow_connections false`);
      }
    } finally {
      await admin
        .query("select pg_advisory_unlock(hashtext('keel test templates'))")
        .catch(() => {});
      await admin.end();
    }
    return name;
  })();
  return postgresTemplate;
}

/**
 * A fresh Postgres database at the latest schema, copied from the migrated template; `drop` as
 * `createTestDatabase`'s. Call only when `postgresAvailable()`.
 *
 * @example
 * const database = await createMigratedDatabase("ledger_cli");
 * const store = await openStore({ db: database.url });
 */
export async function createMigratedDatabase(label: string): ReturnType<typeof createTestDatabase> {
  return createTestDatabase(label, { template: await postgresTemplateName() });
}
