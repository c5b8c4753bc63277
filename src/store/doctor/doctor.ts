import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { sql } from "kysely";
import { toKeelError } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { checkSqliteFile } from "../dialects/sqlite/sqlite-file-check.js";
import { describeLocation } from "../location.js";
import { kernelStatus } from "../migrate/kernel-migrations.js";
import { kernelMigrationsDir, loadMigrationFiles } from "../migrate/migration-files.js";
import { checkNamingRules, KERNEL_NAMING } from "../naming/naming-rules.js";
import { openBackend } from "../open-store.js";
import { discoverPlugins } from "../plugins/manifest.js";
import { migratePlugins } from "../plugins/plugin-migrations.js";
import type { StoreLocation } from "../types.js";

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
    backend = await openBackend(location);
  } catch (error) {
    const keel = toKeelError(error);
    add("database", "error", keel.message, remedyFor(keel.code));
    return finish();
  }
  try {
    add("database", "ok", `${database} opens (${location.dialect}).`);
    await integrity(backend, add);
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
    const problems = checkNamingRules(await backend.introspect(backend.kysely), KERNEL_NAMING);
    add(
      "naming",
      problems.length === 0 ? "ok" : "warn",
      problems.length === 0
        ? "Every table follows the zone and naming rules."
        : problems.map((p) => p.message).join("; "),
      problems.length === 0
        ? null
        : "A migration broke the naming rules (docs/store.md, Zones and naming); fix it in a new migration.",
    );
    if (status.current > 0) await orphans(backend, location.keelDir, add);
    await plugins(backend, location.keelDir, add);
  } catch (error) {
    const keel = toKeelError(error);
    add("database", "error", keel.message, remedyFor(keel.code));
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

async function integrity(backend: StoreBackend, add: Add): Promise<void> {
  if (backend.name === "sqlite") {
    const rows = await sql<{ quick_check: string }>`PRAGMA quick_check`.execute(backend.kysely);
    const results = rows.rows.map((row) => row.quick_check);
    if (results.length === 1 && results[0] === "ok")
      add("integrity", "ok", "PRAGMA quick_check: ok.");
    else
      add(
        "integrity",
        "error",
        `PRAGMA quick_check: ${results.slice(0, 5).join("; ")}.`,
        "Restore a backup with `keel db restore <backup>` (see .keel/backups/).",
      );
    return;
  }
  // Postgres keeps its own page checksums; a catalog read proves the connection and the schema.
  await sql`SELECT count(*) FROM pg_catalog.pg_class`.execute(backend.kysely);
  add("integrity", "ok", "The server answers and its catalog reads cleanly.");
}

async function orphans(backend: StoreBackend, keelDir: string, add: Add): Promise<void> {
  const jobs = await backend.kysely
    .selectFrom("state_jobs")
    .select(["id", "file_path", "status"])
    .execute();
  const jobsDir = join(keelDir, "jobs");
  const known = new Set(
    jobs.flatMap((job) => [job.id, job.file_path ? basename(job.file_path) : ""]),
  );
  const files = existsSync(jobsDir)
    ? readdirSync(jobsDir).filter((name) => name.endsWith(".md"))
    : [];
  const orphanFiles = files.filter((name) => !known.has(name) && !known.has(name.slice(0, -3)));
  add(
    "orphan-job-files",
    orphanFiles.length === 0 ? "ok" : "warn",
    orphanFiles.length === 0
      ? "No job file without a job."
      : `${orphanFiles.length} job file(s) in ${jobsDir} have no job: ${orphanFiles.slice(0, 5).join(", ")}.`,
    orphanFiles.length === 0 ? null : "Run `keel job prune --orphan-files`.",
  );
  const orphanRows = jobs.filter(
    (job) =>
      job.file_path &&
      !existsSync(
        job.file_path.startsWith("/") ? job.file_path : join(keelDir, "..", job.file_path),
      ),
  );
  add(
    "orphan-job-rows",
    orphanRows.length === 0 ? "ok" : "warn",
    orphanRows.length === 0
      ? "Every job's file exists."
      : `${orphanRows.length} job(s) point at a missing file: ${orphanRows
          .slice(0, 5)
          .map((j) => j.id)
          .join(", ")}.`,
    orphanRows.length === 0
      ? null
      : "Cancel them (`keel job cancel <id>`) or prune finished ones (`keel job prune`).",
  );
}

async function plugins(backend: StoreBackend, keelDir: string, add: Add): Promise<void> {
  const dir = join(keelDir, "plugins");
  const found = discoverPlugins(dir);
  const results = await migratePlugins(backend, found, { dryRun: true });
  const broken = [
    ...found
      .filter((p) => p.status !== "enabled" && p.status !== "disabled")
      .map((p) => `${p.id}: ${p.status} (${p.statusReason ?? ""})`),
    ...results
      .filter((r) => r.status === "load-error")
      .map((r) => `${r.pluginId}: load-error (${r.reason ?? ""})`),
  ];
  const pending = results.filter((r) => r.status === "enabled" && r.pending.length > 0);
  if (broken.length > 0) {
    add(
      "plugins",
      "warn",
      `Plugins in error: ${broken.join("; ")}.`,
      "Fix the plugin as the reason says, or disable it.",
    );
  } else if (pending.length > 0) {
    add(
      "plugins",
      "warn",
      `Plugin migrations pending: ${pending.map((r) => `${r.pluginId} (${r.pending.length})`).join(", ")}.`,
      "Run `keel db migrate`.",
    );
  } else {
    add(
      "plugins",
      "ok",
      found.length === 0 ? "No plugins installed." : `${found.length} plugin(s), none in error.`,
    );
  }
}

function remedyFor(code: string): string {
  switch (code) {
    case "STORE_CORRUPT":
      return "Restore a backup with `keel db restore <backup>` (see .keel/backups/).";
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
