import { existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { toKeelError } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { checkSqliteFile } from "../dialects/sqlite/sqlite-file-check.js";
import { describeLocation } from "../location.js";
import { kernelStatus } from "../migrate/kernel-migrations.js";
import { kernelMigrationsDir, loadMigrationFiles } from "../migrate/migration-files.js";
import { openBackend } from "../open-store.js";
import { discoverPlugins, keelDirPluginFolders } from "../plugins/discover.js";
import { readPluginFileSettings } from "../plugins/file-settings.js";
import { readPluginStateOf } from "../plugins/plugin-state.js";
import type { StoreLocation } from "../types.js";
import { jobChecks } from "./job-checks.js";
import { namingCheck } from "./naming-check.js";
import { pluginCheck } from "./plugin-check.js";
import { pluginTablesCheck } from "./plugin-tables-check.js";

/** One doctor check. */
export interface DoctorCheck {
  readonly id: string;
  readonly status: "ok" | "warn" | "error" | "skipped";
  readonly message: string;
  /** What to do about it (absent when ok). */
  readonly remedy: string | null;
}

/** The doctor's report; `exitCode` is 0 all green, 1 warnings, 2 errors. */
export interface DoctorReport {
  readonly database: string;
  readonly dialect: StoreLocation["dialect"];
  readonly checks: readonly DoctorCheck[];
  readonly exitCode: 0 | 1 | 2;
}

/**
 * Diagnoses a store without changing it (seed 004, "Integrity"): the file, integrity, migration
 * versions and their mirror, naming rules, orphan job files and rows, plugins in error. It never
 * creates or migrates the database.
 */
export async function runDoctor(location: StoreLocation): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const add = (
    id: string,
    status: DoctorCheck["status"],
    message: string,
    remedy: string | null = null,
  ) => checks.push({ id, status, message, remedy });
  const database = describeLocation(location);
  const finish = (): DoctorReport => ({
    database,
    dialect: location.dialect,
    checks,
    exitCode: checks.some((c) => c.status === "error")
      ? 2
      : checks.some((c) => c.status === "warn")
        ? 1
        : 0,
  });

  if (location.dialect === "sqlite" && location.path !== ":memory:" && !existsSync(location.path)) {
    add(
      "database",
      "error",
      `There is no database at ${location.path}.`,
      "Create it with `keel db migrate` (or any keel command), or point --db at the right file.",
    );
    return finish();
  }
  let backend: StoreBackend;
  try {
    if (location.dialect === "sqlite") checkSqliteFile(location.path);
    backend = await openBackend(location, { readOnly: true });
  } catch (error) {
    const keel = toKeelError(error);
    add("database", "error", keel.message, remedyFor(keel.code, location.keelDir));
    return finish();
  }
  try {
    add("database", "ok", `${database} opens (${location.dialect}).`);
    await integrity(backend, add, location.keelDir);
    const files = loadMigrationFiles(kernelMigrationsDir(backend.name));
    const status = await kernelStatus(backend, files);
    if (status.current > status.latest || status.userVersion > status.latest) {
      add(
        "migrations",
        "error",
        `The database is at schema v${Math.max(status.current, status.userVersion)}, newer than this Keel (v${status.latest}).`,
        "Upgrade Keel to the version that wrote it.",
      );
    } else if (status.pending.length > 0) {
      add(
        "migrations",
        "warn",
        `${status.pending.length} kernel migration(s) pending: ${status.pending.map((p) => p.name).join(", ")}.`,
        "Run `keel db migrate`.",
      );
    } else {
      add("migrations", "ok", `Kernel schema at v${status.current}, matching this Keel.`);
    }
    if (status.userVersion !== status.current) {
      add(
        "user-version",
        "warn",
        `user_version says v${status.userVersion} but config_schema_versions says v${status.current}.`,
        "Run `keel db migrate`: it re-aligns the user_version with the ledger.",
      );
    } else {
      add("user-version", "ok", "user_version matches the migration ledger.");
    }
    const state = await readPluginStateOf(backend);
    // The user's switches only: pluginCheck reports failed and pending plugins itself.
    const found = discoverPlugins(keelDirPluginFolders(location.keelDir), {
      state,
      settings: readPluginFileSettings(location.keelDir),
      readiness: false,
    });
    const snapshot = await backend.introspect(backend.kysely);
    const naming = namingCheck(snapshot, found);
    add("naming", naming.status, naming.message, naming.remedy);
    const tables = pluginTablesCheck(snapshot, found);
    add("plugin-tables", tables.status, tables.message, tables.remedy);
    const now = Date.now();
    if (status.current > 0) {
      const jobs = await jobChecks(backend, location.keelDir, now);
      add("orphan-job-files", jobs.files.status, jobs.files.message, jobs.files.remedy);
      add("orphan-job-rows", jobs.rows.status, jobs.rows.message, jobs.rows.remedy);
      add("stuck-jobs", jobs.stuck.status, jobs.stuck.message, jobs.stuck.remedy);
    }
    const pluginState = await pluginCheck(backend, found);
    add("plugins", pluginState.status, pluginState.message, pluginState.remedy);
  } catch (error) {
    const keel = toKeelError(error);
    add("database", "error", keel.message, remedyFor(keel.code, location.keelDir));
  } finally {
    await backend.close();
  }
  return finish();
}

type Add = (
  id: string,
  status: DoctorCheck["status"],
  message: string,
  remedy?: string | null,
) => void;

async function integrity(backend: StoreBackend, add: Add, keelDir: string): Promise<void> {
  if (backend.name === "sqlite") {
    // A damaged page can make quick_check itself fail (SQLITE_CORRUPT) instead of reporting.
    const results = await sql<{ quick_check: string }>`PRAGMA quick_check`
      .execute(backend.kysely)
      .then(
        (rows) => rows.rows.map((row) => row.quick_check),
        (error: unknown) => [error instanceof Error ? error.message : String(error)],
      );
    if (results.length === 1 && results[0] === "ok")
      add("integrity", "ok", "PRAGMA quick_check: ok.");
    else
      add(
        "integrity",
        "error",
        `PRAGMA quick_check: ${results.slice(0, 5).join("; ")}.`,
        restoreRemedy(keelDir),
      );
    return;
  }
  // Postgres keeps its own page checksums; a catalog read proves the connection and the schema.
  await sql`SELECT count(*) FROM pg_catalog.pg_class`.execute(backend.kysely);
  add("integrity", "ok", "The server answers and its catalog reads cleanly.");
}

function remedyFor(code: string, keelDir: string): string {
  switch (code) {
    case "STORE_CORRUPT":
      return restoreRemedy(keelDir);
    case "STORE_NOT_A_DATABASE":
      return "Point --db (or KEEL_DATABASE_URL) at a Keel database, or move the file away.";
    case "STORE_READ_ONLY":
      return "Give Keel write access to the database file and its directory, or choose another --db.";
    case "STORE_TOO_NEW":
      return "Upgrade Keel to the version that wrote this database.";
    case "STORE_OPEN_FAILED":
      return "Check that the server is running and the URL in --db / KEEL_DATABASE_URL.";
    default:
      return "See the message above; `keel db migrate --status` shows the schema state.";
  }
}

/** How to get a good database back: the scope's backups, restored by `keel db restore`. */
function restoreRemedy(keelDir: string): string {
  return `Restore a backup: \`keel db restore <backup> --force\` (backups are in ${join(keelDir, "backups")}; the damaged file is kept aside).`;
}
