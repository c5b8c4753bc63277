import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import {
  kernelMigrationsDir,
  loadMigrationFiles,
  openStore,
  resolveStoreLocation,
  type Store,
} from "../../src/store/index.js";
import { checkNamingRules, KERNEL_NAMING } from "../../src/store/naming/naming-rules.js";
import { backendOf, openBackend } from "../../src/store/open-store.js";
import { job, SEED_CATALOG, SEED_INDEXES } from "./catalog.js";
import { type DialectHarness, tempDir } from "./harness.js";

/**
 * The store conformance suite: every case runs against each dialect, on real databases.
 * Each dialect's test file is one call.
 */
export function runStoreConformance(harness: DialectHarness): void {
  const latest = loadMigrationFiles(kernelMigrationsDir(harness.dialect)).length;
  const open: Store[] = [];
  const track = async (promise: Promise<Store>) => {
    const store = await promise;
    open.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of open) await store.close();
    await harness.cleanup();
  });

  describe(`store conformance: ${harness.dialect}`, () => {
    it("opens an empty database and applies every kernel migration, recorded and mirrored", async () => {
      const { db } = await harness.fresh("empty");
      const store = await track(openStore({ db }));
      expect(store.dialect).toBe(harness.dialect);
      expect(store.openReport.kernel.from).toBe(0);
      expect(store.openReport.kernel.to).toBe(latest);
      expect(store.openReport.kernel.applied.map((m) => m.version)).toEqual(
        Array.from({ length: latest }, (_, i) => i + 1),
      );
      const ledger = await store.kysely
        .selectFrom("config_schema_versions")
        .selectAll()
        .orderBy("version")
        .execute();
      expect(ledger.map((row) => [row.scope, row.owner_id, Number(row.version)])).toEqual(
        Array.from({ length: latest }, (_, i) => ["kernel", "kernel", i + 1]),
      );
      expect(ledger[0]?.description).toBe("kernel");
      expect(await backendOf(store).readUserVersion(store.kysely)).toBe(latest);
      await store.close();
      const again = await track(openStore({ db }));
      expect(again.openReport.kernel.applied).toEqual([]);
      expect(again.openReport.kernel.to).toBe(latest);
    });

    it("states its capabilities as flags", async () => {
      const { db } = await harness.fresh("caps");
      const store = await track(openStore({ db }));
      const postgres = harness.dialect === "postgres";
      expect(store.capabilities.supportsSkipLocked).toBe(postgres);
      expect(store.supportsAdvisoryLocks).toBe(postgres);
      expect(store.supportsTransactionalDdl).toBe(true);
      expect(store.supportsMultipleConnections).toBe(postgres);
      expect(store.native.dialect).toBe(harness.dialect);
    });

    it("has every table and column of the seed's catalog", async () => {
      const { db } = await harness.fresh("catalog");
      const store = await track(openStore({ db }));
      const snapshot = await backendOf(store).introspect(store.kysely);
      for (const [table, columns] of Object.entries(SEED_CATALOG)) {
        const live = snapshot.tables.find((t) => t.name === table);
        expect(live, table).toBeDefined();
        expect(
          live?.columns.map((c) => c.name),
          table,
        ).toEqual(columns);
      }
      for (const [table, indexes] of Object.entries(SEED_INDEXES)) {
        const live = snapshot.tables.find((t) => t.name === table);
        expect(live?.indexes.map((i) => i.name).sort(), table).toEqual([...indexes].sort());
      }
      const active = snapshot.tables
        .find((t) => t.name === "state_jobs")
        ?.indexes.find((i) => i.name === "ix_state_jobs_action_node_hash");
      expect(active).toMatchObject({
        unique: true,
        partial: true,
        columns: ["action_id", "action_version", "node_id", "content_hash"],
      });
      const pk = (name: string) => snapshot.tables.find((t) => t.name === name)?.primaryKey;
      expect(pk("state_summaries")).toEqual(["node_id", "summarizer_action_id"]);
      expect(pk("state_plugin_kv")).toEqual(["plugin_id", "node_id", "key"]);
      expect(pk("config_schema_versions")).toEqual(["scope", "owner_id", "version"]);
    });

    it("follows every zone and naming rule, read from the live schema of all tables", async () => {
      const { db } = await harness.fresh("naming");
      const store = await track(openStore({ db }));
      const snapshot = await backendOf(store).introspect(store.kysely);
      expect(snapshot.tables.length).toBeGreaterThanOrEqual(Object.keys(SEED_CATALOG).length);
      expect(checkNamingRules(snapshot, KERNEL_NAMING)).toEqual([]);
      // Every _at column is an integer type wide enough for milliseconds.
      for (const table of snapshot.tables) {
        for (const column of table.columns.filter((c) => c.name.endsWith("_at"))) {
          expect(column.type, `${table.name}.${column.name}`).toBe(
            harness.dialect === "sqlite" ? "INTEGER" : "BIGINT",
          );
        }
      }
    });

    it("refuses writes that break a CHECK constraint", async () => {
      const { db } = await harness.fresh("checks");
      const store = await track(openStore({ db }));
      const k = store.kysely;
      await expect(k.insertInto("state_jobs").values(job("j1", "bogus")).execute()).rejects.toThrow(
        /ck_state_jobs_status|CHECK/i,
      );
      await expect(
        k
          .insertInto("state_jobs")
          .values(job("j2", "failed", { failure_reason: "oops" }))
          .execute(),
      ).rejects.toThrow(/ck_state_jobs_failure_reason|CHECK/i);
      await expect(
        k
          .insertInto("state_jobs")
          .values(job("j3", "queued", { runner: "robot" }))
          .execute(),
      ).rejects.toThrow(/ck_state_jobs_runner|CHECK/i);
      await expect(
        k
          .insertInto("scan_issues")
          .values({
            rule_id: "r",
            severity: "fatal" as never,
            node_ids_json: "[]",
            message: "m",
          } as never)
          .execute(),
      ).rejects.toThrow(/ck_scan_issues_severity|CHECK/i);
      await expect(
        k
          .insertInto("config_schema_versions")
          .values({
            scope: "other" as never,
            owner_id: "x",
            version: 1,
            description: "d",
            applied_at: 1,
          })
          .execute(),
      ).rejects.toThrow(/ck_config_schema_versions_scope|CHECK/i);
      await expect(
        k
          .insertInto("config_plugins")
          .values({ plugin_id: "p", enabled: 2 as never, config_json: null, updated_at: 1 })
          .execute(),
      ).rejects.toThrow(/ck_config_plugins_enabled|CHECK/i);
      await k
        .insertInto("state_jobs")
        .values(job("ok", "queued", { runner: "in-process" }))
        .execute();
      expect(await k.selectFrom("state_jobs").select("id").execute()).toEqual([{ id: "ok" }]);
    });

    it("allows one active job per (action, version, node, content hash), any number of finished ones", async () => {
      const { db } = await harness.fresh("active");
      const store = await track(openStore({ db }));
      const k = store.kysely;
      await k.insertInto("state_jobs").values(job("a", "queued")).execute();
      await expect(
        k.insertInto("state_jobs").values(job("b", "running")).execute(),
      ).rejects.toThrow(/unique|ix_state_jobs_action_node_hash/i);
      await k.insertInto("state_jobs").values(job("c", "completed")).execute();
      await k.insertInto("state_jobs").values(job("d", "failed")).execute();
      await k
        .updateTable("state_jobs")
        .set({ status: "completed" })
        .where("id", "=", "a")
        .execute();
      await k.insertInto("state_jobs").values(job("e", "queued")).execute();
      await k
        .insertInto("state_jobs")
        .values(job("f", "queued", { content_hash: "other" }))
        .execute();
      const ids = await k.selectFrom("state_jobs").select("id").orderBy("id").execute();
      expect(ids.map((r) => r.id)).toEqual(["a", "c", "d", "e", "f"]);
    });

    it("commits a transaction that resolves and rolls back one that throws", async () => {
      const { db } = await harness.fresh("tx");
      const store = await track(openStore({ db }));
      const pref = (key: string) => ({ key, value_json: "1", updated_at: 1 });
      await store.transaction(async (tx) => {
        await tx.insertInto("config_preferences").values(pref("kept")).execute();
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.insertInto("config_preferences").values(pref("lost")).execute();
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      const keys = await store.kysely.selectFrom("config_preferences").select("key").execute();
      expect(keys).toEqual([{ key: "kept" }]);
    });

    it("stores millisecond timestamps as numbers, round-tripped exactly", async () => {
      const { db } = await harness.fresh("millis");
      const store = await track(openStore({ db }));
      const at = 4_102_444_800_123; // 2100-01-01, beyond 32 bits
      await store.kysely
        .insertInto("config_preferences")
        .values({ key: "t", value_json: "null", updated_at: at })
        .execute();
      const row = await store.kysely
        .selectFrom("config_preferences")
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(row.updated_at).toBe(at);
    });

    it("leaves a new database alone when autoMigrate is false, and migrates --to a version", async () => {
      const { db } = await harness.fresh("manual");
      const idle = await track(openStore({ db, autoMigrate: false }));
      expect(idle.openReport.kernel.applied).toEqual([]);
      expect(await backendOf(idle).tableExists(idle.kysely, "state_jobs")).toBe(false);
      await idle.close();
      const { migrate } = await import("../../src/store/migrate/migrate.js");
      const store = await track(openStore({ db, autoMigrate: false }));
      const report = await migrate(store, { to: 1 });
      expect(report.kernel.applied.map((m) => m.version)).toEqual([1]);
      expect(await backendOf(store).readUserVersion(store.kysely)).toBe(1);
      const rest = await migrate(store, {});
      expect(rest.kernel.from).toBe(1);
      expect(rest.kernel.to).toBe(latest);
    });

    it("honours auto_migrate false from the preferences and from .keel/config.json", async () => {
      const { db, dir } = await harness.fresh("auto-off");
      const first = await openStore({ db });
      await first.kysely
        .insertInto("config_preferences")
        .values({ key: "auto_migrate", value_json: "false", updated_at: 1 })
        .execute();
      await first.close();
      const extra = join(tempDir("extra-migrations"), harness.dialect);
      cpSync(kernelMigrationsDir(harness.dialect), extra, { recursive: true });
      const next = String(latest + 1).padStart(3, "0");
      writeFileSync(
        join(extra, `${next}_extra.sql`),
        "CREATE TABLE state_extras (id TEXT PRIMARY KEY);\n",
      );
      const idle = await track(openStore({ db, migrationsDir: extra }));
      expect(idle.openReport.kernel.applied).toEqual([]);
      expect(await backendOf(idle).tableExists(idle.kysely, "state_extras")).toBe(false);
      await idle.kysely.deleteFrom("config_preferences").execute();
      await idle.close();
      if (harness.dialect === "sqlite") {
        mkdirSync(join(dir, ".keel"), { recursive: true });
        writeFileSync(join(dir, ".keel", "config.json"), JSON.stringify({ auto_migrate: false }));
        const stillIdle = await track(openStore({ db, migrationsDir: extra }));
        expect(stillIdle.openReport.kernel.applied).toEqual([]);
        await stillIdle.close();
        writeFileSync(join(dir, ".keel", "config.json"), "{}");
      }
      const migrated = await track(openStore({ db, migrationsDir: extra }));
      expect(migrated.openReport.kernel.applied.map((m) => m.name)).toEqual([`${next}_extra`]);
    });

    it("refuses a database written by a newer Keel and changes nothing", async () => {
      const { db } = await harness.fresh("newer");
      const store = await openStore({ db });
      const backend = backendOf(store);
      await store.kysely
        .insertInto("config_schema_versions")
        .values({
          scope: "kernel",
          owner_id: "kernel",
          version: 99,
          description: "future",
          applied_at: 1,
        })
        .execute();
      await backend.writeUserVersion(store.kysely, 99);
      await store.close();
      await expect(openStore({ db })).rejects.toMatchObject({
        code: "STORE_TOO_NEW",
        exitCode: 2,
        message: expect.stringMatching(/version 99.*newer than this Keel knows/),
      });
      const backend2 = await openBackend(resolveStoreLocation({ db }));
      expect(await backend2.readUserVersion(backend2.kysely)).toBe(99);
      const versions = await backend2.kysely
        .selectFrom("config_schema_versions")
        .select("version")
        .execute();
      expect(versions.map((row) => Number(row.version))).toEqual([
        ...Array.from({ length: latest }, (_, i) => i + 1),
        99,
      ]);
      await backend2.close();
    });

    it("rolls back a migration that fails halfway, leaves the database as it was, keeps the backup", async () => {
      const { db, dir } = await harness.fresh("halfway");
      const first = await openStore({ db });
      await first.kysely
        .insertInto("config_preferences")
        .values({ key: "precious", value_json: '"data"', updated_at: 1 })
        .execute();
      const before = await backendOf(first).introspect(first.kysely);
      await first.close();

      const broken = join(tempDir("broken-migrations"), harness.dialect);
      cpSync(kernelMigrationsDir(harness.dialect), broken, { recursive: true });
      const next = String(latest + 1).padStart(3, "0");
      writeFileSync(
        join(broken, `${next}_half_done.sql`),
        "CREATE TABLE state_half_done (id TEXT PRIMARY KEY);\nCREATE TABLE state_broken (id TEXT PRIMARY KEY, oops NOT_A_TYPE(;\n",
      );
      const failure = await openStore({ db, migrationsDir: broken }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: "MIGRATION_FAILED", exitCode: 2 });
      expect(String((failure as Error).message)).toMatch(
        new RegExp(`${next}_half_done failed and was rolled back`),
      );

      const after = await track(openStore({ db }));
      expect(await backendOf(after).introspect(after.kysely)).toEqual(before);
      expect(await backendOf(after).readUserVersion(after.kysely)).toBe(latest);
      const kept = await after.kysely.selectFrom("config_preferences").selectAll().execute();
      expect(kept.map((row) => row.key)).toEqual(["precious"]);
      if (harness.dialect === "sqlite") {
        const backup = join(dir, ".keel", "backups", `keel-pre-migrate-v${latest}.db`);
        expect(existsSync(backup)).toBe(true);
        expect((failure as { details: { backupPath: string } }).details.backupPath).toBe(backup);
        const restored = await track(openStore({ db: backup, autoMigrate: false }));
        const rows = await restored.kysely.selectFrom("config_preferences").select("key").execute();
        expect(rows).toEqual([{ key: "precious" }]);
      }
    });

    it("runs raw SQL through kysely with the dialect's placeholders", async () => {
      const { db } = await harness.fresh("raw");
      const store = await track(openStore({ db }));
      const result = await sql<{ n: number }>`SELECT ${41} + 1 AS n`.execute(store.kysely);
      expect(Number(result.rows[0]?.n)).toBe(42);
    });
  });
}
