import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/store/doctor/doctor.js";
import { locationOf, openStore, type StoreLocation } from "../../src/store/index.js";
import { backendOf } from "../../src/store/open-store.js";
import { keelCommandsIn, keelInProcess, unknownKeelCommandParts } from "./cli-in-process.js";
import type { DialectHarness } from "./harness.js";

/** A dedicated-storage plugin `notes` with one migration, in the scope folder `keelDir`. */
function writeNotesPlugin(keelDir: string): void {
  const dir = join(keelDir, "plugins", "notes");
  mkdirSync(join(dir, "migrations"), { recursive: true });
  writeFileSync(
    join(dir, "plugin.json"),
    JSON.stringify({
      id: "notes",
      version: "1.0.0",
      storage: { mode: "dedicated", tables: ["entries"], migrations: ["migrations/001_init.sql"] },
    }),
  );
  writeFileSync(
    join(dir, "migrations", "001_init.sql"),
    "CREATE TABLE entries (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);\nCREATE INDEX ix_entries_created_at ON entries (created_at);",
  );
}

/** `keel doctor` on each dialect: its checks and that their remedies work as written. */
export function runDoctorCases(harness: DialectHarness): void {
  afterAll(() => harness.cleanup());
  /** A database at the latest kernel schema (`empty`: one never migrated) and its scope folder. */
  const fresh = async (
    label: string,
    start: "migrated" | "empty" = "migrated",
  ): Promise<{ location: StoreLocation; keelDir: string; db: string; dir: string }> => {
    const { db, dir } = await (start === "empty" ? harness.fresh(label) : harness.migrated(label));
    const keelDir = join(dir, ".keel");
    return {
      location: { ...locationOf(db, dir, keelDir), keelDir } as StoreLocation,
      keelDir,
      db,
      dir,
    };
  };
  const check = (report: Awaited<ReturnType<typeof runDoctor>>, id: string) =>
    report.checks.find((c) => c.id === id);
  /**
   * Carries out a remedy's `keel …` commands as written, in-process, on the database doctor was
   * given (`--db`, from the scope folder); each must be a verb and options `keel` has.
   */
  const carryOut = async (remedy: string | null | undefined, db: string, cwd: string) => {
    const commands = keelCommandsIn(remedy);
    expect(commands.length, String(remedy)).toBeGreaterThan(0);
    for (const command of commands) {
      expect(unknownKeelCommandParts(command)).toEqual([]);
      const run = await keelInProcess([...command.split(/\s+/).slice(1), "--db", db], { cwd });
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(0);
    }
  };
  /** Every `keel …` a report's remedies name exists. */
  const expectRealCommands = (report: Awaited<ReturnType<typeof runDoctor>>) => {
    for (const c of report.checks) {
      for (const command of keelCommandsIn(c.remedy)) {
        expect(unknownKeelCommandParts(command), `${c.id}: ${c.remedy}`).toEqual([]);
      }
    }
  };

  describe(`keel doctor: ${harness.dialect}`, () => {
    it("is green (exit 0) on a healthy database with a dedicated plugin: its tables are checked against its own prefix", async () => {
      const { location, keelDir } = await fresh("doctor-plugin");
      writeNotesPlugin(keelDir);
      const store = await openStore({ location });
      expect(store.openReport.plugins).toMatchObject([{ pluginId: "notes", status: "enabled" }]);
      await store.close();
      const healthy = await runDoctor(location);
      expect(healthy.checks.filter((c) => c.status !== "ok")).toEqual([]);
      expect(healthy.exitCode).toBe(0);

      // A plugin table that breaks a rule is the plugin's to fix, and says so.
      const again = await openStore({ location });
      await sql`CREATE TABLE plugin_notes_entries_archive (id TEXT PRIMARY KEY)`.execute(
        again.kysely,
      );
      await again.close();
      const warned = await runDoctor(location);
      expect(check(warned, "naming")).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/plugin_notes_entries_archive must be named in the plural/),
        remedy: expect.stringMatching(/plugin must fix it with a new migration/),
      });
      expect(warned.exitCode).toBe(1);
    });

    it("naming: a table outside the zones and a kernel-zone table that breaks the rules are warnings with their remedies", async () => {
      const { location } = await fresh("doctor-naming");
      const store = await openStore({ location });
      await sql`CREATE TABLE customers (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await sql`CREATE TABLE state_widget (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await store.close();
      const report = await runDoctor(location);
      const naming = check(report, "naming");
      expect(naming).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/customers.*state_widget must be named in the plural/s),
        remedy: expect.stringMatching(
          /outside the scan_\/state_\/config_\/plugin_ zones.*A kernel table breaks the rules/s,
        ),
      });
      expect(report.exitCode).toBe(1);
      expectRealCommands(report);
      const fixer = await openStore({ location });
      await sql`DROP TABLE customers`.execute(fixer.kysely);
      await sql`DROP TABLE state_widget`.execute(fixer.kysely);
      await fixer.close();
      expect((await runDoctor(location)).exitCode).toBe(0);
    });

    it("pending kernel migrations: warn, and `keel db migrate` as the remedy says makes doctor green", async () => {
      const { location, db, dir } = await fresh("doctor-pending", "empty");
      const { migrate } = await import("../../src/store/migrate/migrate.js");
      const store = await openStore({ location, autoMigrate: false });
      await migrate(store, { to: 1 });
      await store.close();
      const report = await runDoctor(location);
      expect(check(report, "migrations")).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/kernel migration\(s\) pending: 002_/),
        remedy: expect.stringMatching(/`keel db migrate`/),
      });
      expect(check(report, "user-version")).toMatchObject({ status: "ok" });
      expect(report.exitCode).toBe(1);
      await carryOut(check(report, "migrations")?.remedy, db, dir);
      const after = await runDoctor(location);
      expect(check(after, "migrations")).toMatchObject({ status: "ok" });
      expect(after.exitCode).toBe(0);
    });

    it("a user_version that disagrees with the ledger: warn; `keel db migrate` re-aligns it", async () => {
      const { location, db, dir } = await fresh("doctor-user-version");
      const store = await openStore({ location });
      const latest = await backendOf(store).readUserVersion(store.kysely);
      await backendOf(store).writeUserVersion(store.kysely, latest - 2);
      await store.close();
      const report = await runDoctor(location);
      expect(check(report, "user-version")).toMatchObject({
        status: "warn",
        message: `user_version says v${latest - 2} but config_schema_versions says v${latest}.`,
      });
      expect(check(report, "migrations")).toMatchObject({ status: "ok" });
      expect(report.exitCode).toBe(1);
      // `keel db migrate --status` shows the mismatch too, and changes nothing.
      const status = await keelInProcess(["db", "migrate", "--status", "--json", "--db", db], {
        cwd: dir,
      });
      expect(status.json).toMatchObject({ kernel: { current: latest, userVersion: latest - 2 } });
      await carryOut(check(report, "user-version")?.remedy, db, dir);
      const reopened = await openStore({ location, autoMigrate: false });
      expect(await backendOf(reopened).readUserVersion(reopened.kysely)).toBe(latest);
      await reopened.close();
      expect((await runDoctor(location)).exitCode).toBe(0);
    });

    it("a database newer than this Keel: error (exit 2), nothing changed", async () => {
      const { location } = await fresh("doctor-too-new");
      const store = await openStore({ location });
      await store.kysely
        .insertInto("config_schema_versions")
        .values({
          scope: "kernel",
          owner_id: "kernel",
          version: 99,
          description: "x",
          applied_at: 1,
        })
        .execute();
      await store.close();
      const report = await runDoctor(location);
      expect(check(report, "migrations")).toMatchObject({
        status: "error",
        message: expect.stringMatching(/schema v99, newer than this Keel/),
        remedy: expect.stringMatching(/Upgrade Keel/),
      });
      expect(report.exitCode).toBe(2);
      expectRealCommands(report);
    });

    it("plugin tables no installed dedicated plugin declares: warn, with the SQL that drops them", async () => {
      const { location, keelDir } = await fresh("doctor-plugin-tables");
      writeNotesPlugin(keelDir);
      const store = await openStore({ location });
      // A removed plugin's tables (one referencing the other), and one the notes plugin never declared.
      await sql`CREATE TABLE plugin_gone_items (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await sql`CREATE TABLE plugin_gone_tags (id TEXT PRIMARY KEY, item_id TEXT REFERENCES plugin_gone_items (id))`.execute(
        store.kysely,
      );
      await sql`CREATE TABLE plugin_notes_drafts (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await store.close();
      const report = await runDoctor(location);
      const tables = check(report, "plugin-tables");
      expect(tables).toMatchObject({
        status: "warn",
        message:
          "3 plugin table(s) belong to no installed dedicated plugin: plugin_gone_items, plugin_gone_tags, plugin_notes_drafts.",
      });
      expect(report.exitCode).toBe(1);
      const drops = [...(tables?.remedy ?? "").matchAll(/`([^`]+)`/g)]
        .map((m) => m[1] ?? "")
        .find((c) => c.startsWith("DROP TABLE"));
      // Children first: plugin_gone_tags references plugin_gone_items.
      expect(drops?.indexOf("plugin_gone_tags")).toBeLessThan(
        drops?.indexOf("plugin_gone_items") ?? -1,
      );
      const fixer = await openStore({ location });
      for (const statement of (drops ?? "").split(/;\s*/).filter(Boolean)) {
        await sql.raw(statement).execute(fixer.kysely);
      }
      // Switched off, a plugin keeps its tables: they are still its own, not orphans.
      await fixer.kysely
        .insertInto("config_plugins")
        .values({ plugin_id: "notes", enabled: 0, updated_at: 1 })
        .execute();
      await fixer.close();
      const after = await runDoctor(location);
      expect(check(after, "plugin-tables")).toMatchObject({ status: "ok" });
      expect(after.exitCode).toBe(0);
    });

    it("pending plugin migrations: warn; `keel db migrate` as the remedy says applies them", async () => {
      const { location, keelDir, db, dir } = await fresh("doctor-plugin-pending");
      await (await openStore({ location })).close();
      writeNotesPlugin(keelDir); // installed after the database was last opened
      const report = await runDoctor(location);
      expect(check(report, "plugins")).toMatchObject({
        status: "warn",
        message: "Plugin migrations pending: notes (1).",
      });
      await carryOut(check(report, "plugins")?.remedy, db, dir);
      expect((await runDoctor(location)).exitCode).toBe(0);
    });

    it("orphan job files and rows: the remedies given are exact operations that clear them", async () => {
      const { location, keelDir } = await fresh("doctor-jobs");
      const store = await openStore({ location });
      const job = (id: string, status: string, file: string) => ({
        id,
        action_id: "summarize",
        action_version: "1",
        node_id: `skills/${id}.md`,
        content_hash: id,
        nonce: `n-${id}`,
        status,
        ttl_seconds: 60,
        file_path: file,
        created_at: 1,
      });
      await store.kysely
        .insertInto("state_jobs")
        .values([
          job("it's-queued", "queued", ".keel/jobs/gone.md"),
          job("done", "completed", ".keel/jobs/also-gone.md"),
          job("fine", "queued", ".keel/jobs/fine.md"),
        ] as never)
        .execute();
      await store.close();
      mkdirSync(join(keelDir, "jobs"), { recursive: true });
      writeFileSync(join(keelDir, "jobs", "fine.md"), "# a job\n");
      writeFileSync(join(keelDir, "jobs", "ghost's.md"), "# nobody's job\n");

      const report = await runDoctor(location);
      const files = check(report, "orphan-job-files");
      const rows = check(report, "orphan-job-rows");
      expect(files).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/ghost's\.md/),
      });
      expect(rows).toMatchObject({ status: "warn", message: expect.stringMatching(/it's-queued/) });
      expect(files?.remedy).toContain("`keel job prune --orphan-files`");
      expectRealCommands(report);

      // Do what the remedies say, as written.
      const commands = (remedy: string | null | undefined) =>
        [...(remedy ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
      const rm = commands(files?.remedy).find((c) => c.startsWith("rm "));
      expect(spawnSync("sh", ["-c", rm ?? "false"]).status).toBe(0);
      const fixer = await openStore({ location });
      for (const statement of commands(rows?.remedy).filter((c) => c.startsWith("UPDATE"))) {
        await sql.raw(statement).execute(fixer.kysely);
      }
      const after = await fixer.kysely
        .selectFrom("state_jobs")
        .select(["id", "status", "failure_reason", "file_path"])
        .orderBy("id")
        .execute();
      expect(after).toEqual([
        { id: "done", status: "completed", failure_reason: null, file_path: null },
        { id: "fine", status: "queued", failure_reason: null, file_path: ".keel/jobs/fine.md" },
        {
          id: "it's-queued",
          status: "failed",
          failure_reason: "job-file-missing",
          file_path: null,
        },
      ]);
      await fixer.close();
      const clean = await runDoctor(location);
      expect(check(clean, "orphan-job-files")).toMatchObject({ status: "ok" });
      expect(check(clean, "orphan-job-rows")).toMatchObject({ status: "ok" });
      expect(clean.exitCode).toBe(0);
    });

    it("a plugin in error: switching it off as the remedy says makes doctor green", async () => {
      const { location, keelDir, db, dir } = await fresh("doctor-plugin-error");
      writeNotesPlugin(keelDir);
      writeFileSync(
        join(keelDir, "plugins", "notes", "migrations", "001_init.sql"),
        "CREATE TABLE entries (id TEXT PRIMARY KEY);\nINSERT INTO entries (id) VALUES ('a');\nINSERT INTO entries (id) VALUES ('a');",
      );
      await (await openStore({ location })).close();
      const report = await runDoctor(location);
      const plugins = check(report, "plugins");
      expectRealCommands(report);
      expect(plugins).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/notes: load-error/),
      });
      const off = keelCommandsIn(plugins?.remedy).find((c) => c.startsWith("keel plugins disable"));
      expect(off, String(plugins?.remedy)).toBe("keel plugins disable notes");
      const run = await keelInProcess([...(off ?? "").split(/\s+/).slice(1), "--db", db], {
        cwd: dir,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const after = await runDoctor(location);
      expect(check(after, "plugins")).toMatchObject({
        status: "ok",
        message: expect.stringMatching(/1 switched off/),
      });
    });
  });
}
