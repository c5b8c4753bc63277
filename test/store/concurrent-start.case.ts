import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { kernelMigrationsDir, loadMigrationFiles, openStore } from "../../src/store/index.js";
import type { DialectHarness } from "./harness.js";

const CHILD = fileURLToPath(new URL("./fixtures/open-and-write.ts", import.meta.url));
// Resolved here: the children run in temporary folders where a bare "tsx" would not resolve.
const TSX = import.meta.resolve("tsx");

function runChild(
  db: string,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // cwd: a Postgres store's scope folder (plugins) is the working directory's .keel.
    const child = spawn(process.execPath, ["--import", TSX, CHILD, db], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A dedicated-storage plugin with two migrations in the scope of `dir`. */
function writePlugin(dir: string): void {
  const plugin = join(dir, ".keel", "plugins", "notes");
  mkdirSync(join(plugin, "migrations"), { recursive: true });
  writeFileSync(
    join(plugin, "plugin.json"),
    JSON.stringify({
      id: "notes",
      version: "1.0.0",
      storage: {
        mode: "dedicated",
        tables: ["entries", "tags"],
        migrations: ["migrations/001_entries.sql", "migrations/002_tags.sql"],
      },
    }),
  );
  writeFileSync(
    join(plugin, "migrations", "001_entries.sql"),
    "CREATE TABLE entries (id TEXT PRIMARY KEY, body TEXT NOT NULL);",
  );
  writeFileSync(
    join(plugin, "migrations", "002_tags.sql"),
    "CREATE TABLE tags (id TEXT PRIMARY KEY, entry_id TEXT NOT NULL);",
  );
}

/**
 * Ten real processes start at once on an empty database with a plugin in the scope: one
 * migrates the kernel, one applies the plugin's migrations, all work.
 */
export function runConcurrentStart(harness: DialectHarness): void {
  afterAll(() => harness.cleanup());
  describe(`concurrent start: ${harness.dialect}`, () => {
    it("10 processes open an empty database at once; the kernel and the plugin migrate once and all write", async () => {
      const { db, dir } = await harness.fresh("concurrent");
      writePlugin(dir);
      const results = await Promise.all(Array.from({ length: 10 }, () => runChild(db, dir)));
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      const reports = results.map(
        (r) =>
          JSON.parse(r.stdout.trim()) as {
            pid: number;
            applied: number;
            pluginApplied: number;
            pluginStatuses: string[];
          },
      );
      const latest = loadMigrationFiles(kernelMigrationsDir(harness.dialect)).length;
      expect(reports.filter((r) => r.applied > 0).map((r) => r.applied)).toEqual([latest]);
      for (const report of reports) expect(report.pluginStatuses).toEqual(["notes:enabled"]);
      expect(reports.filter((r) => r.pluginApplied > 0).map((r) => r.pluginApplied)).toEqual([2]);

      const store = await openStore({ db });
      const ledger = await store.kysely.selectFrom("config_schema_versions").selectAll().execute();
      expect(ledger.filter((row) => row.scope === "kernel")).toHaveLength(latest);
      expect(
        ledger
          .filter((row) => row.scope === "plugin")
          .map((row) => Number(row.version))
          .sort(),
      ).toEqual([1, 2]);
      const rows = await store.kysely.selectFrom("config_preferences").select("key").execute();
      expect(rows.map((r) => r.key).sort()).toEqual(reports.map((r) => `worker.${r.pid}`).sort());
      await store.close();
    }, 180_000);
  });
}
