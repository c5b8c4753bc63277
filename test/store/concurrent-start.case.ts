import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { kernelMigrationsDir, loadMigrationFiles, openStore } from "../../src/store/index.js";
import type { DialectHarness } from "./harness.js";

const CHILD = fileURLToPath(new URL("./fixtures/open-and-write.ts", import.meta.url));

function runChild(db: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, db], {
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

/** Ten real processes start at once on an empty database: one migrates, all work. */
export function runConcurrentStart(harness: DialectHarness): void {
  afterAll(() => harness.cleanup());
  describe(`concurrent start: ${harness.dialect}`, () => {
    it("10 processes open an empty database at once; exactly one migrates and all write", async () => {
      const { db } = await harness.fresh("concurrent");
      const results = await Promise.all(Array.from({ length: 10 }, () => runChild(db)));
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      const reports = results.map(
        (r) => JSON.parse(r.stdout.trim()) as { pid: number; applied: number },
      );
      const latest = loadMigrationFiles(kernelMigrationsDir(harness.dialect)).length;
      expect(reports.filter((r) => r.applied > 0).map((r) => r.applied)).toEqual([latest]);

      const store = await openStore({ db });
      const ledger = await store.kysely.selectFrom("config_schema_versions").selectAll().execute();
      expect(ledger).toHaveLength(latest);
      const rows = await store.kysely.selectFrom("config_preferences").select("key").execute();
      expect(rows.map((r) => r.key).sort()).toEqual(reports.map((r) => `worker.${r.pid}`).sort());
      await store.close();
    }, 120_000);
  });
}
