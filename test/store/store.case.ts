import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { compareCodePoints } from "../../src/core/index.js";
import {
  kernelMigrationsDir,
  loadMigrationFiles,
  openStore,
  resolveStoreLocation,
  type Store,
} from "../../src/store/index.js";
import { checkNamingRules, KERNEL_NAMING } from "../../src/store/naming/naming-rules.js";
import { checkSqlKeywordCase } from "../../src/store/naming/sql-keyword-case.js";
import { backendOf, openBackend } from "../../src/store/open-store.js";
import {
  DIALECT_INDEXES,
  defaultValueOf,
  dialectTables,
  expectedColumns,
  job,
  KERNEL_CHECKS,
  KERNEL_INDEXES,
  KERNEL_TABLES,
  normalizeDefault,
  PARENT_TABLES,
  SEED_INDEXES,
  validRow,
} from "./catalog.js";
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
      const { db } = await harness.migrated("caps");
      const store = await track(openStore({ db }));
      const postgres = harness.dialect === "postgres";
      expect(store.capabilities.supportsSkipLocked).toBe(postgres);
      expect(store.supportsAdvisoryLocks).toBe(postgres);
      expect(store.supportsTransactionalDdl).toBe(true);
      expect(store.supportsMultipleConnections).toBe(postgres);
      expect(store.native.dialect).toBe(harness.dialect);
    });

    it("has every kernel table with its columns, types, NOT NULL, defaults and CHECKs, and no other", async () => {
      const { db } = await harness.migrated("catalog");
      const store = await track(openStore({ db }));
      const snapshot = await backendOf(store).introspect(store.kysely);
      // The catalog (test/store/catalog.ts) is the whole kernel: a migration that adds a table
      // or a CHECK adds it there too.
      expect(
        snapshot.tables.map((t) => t.name).sort(),
        "kernel tables missing from or extra to test/store/catalog.ts (KEEL_TABLES)",
      ).toEqual(dialectTables(harness.dialect).sort());
      expect(
        snapshot.tables
          .flatMap((t) => t.constraints.filter((c) => c.kind === "check").map((c) => c.name))
          .sort(),
        "CHECK constraints missing from or extra to test/store/catalog.ts (KEEL_CHECKS)",
      ).toEqual(KERNEL_CHECKS.map((c) => c.check).sort());
      for (const table of dialectTables(harness.dialect)) {
        const live = snapshot.tables.find((t) => t.name === table);
        // Types (per dialect), NOT NULL and defaults, column by column and in order.
        expect(
          live?.columns.map((c) => ({
            name: c.name,
            type: c.type,
            notNull: c.notNull,
            defaultValue: normalizeDefault(c.defaultValue),
          })),
          table,
        ).toEqual(expectedColumns(table, harness.dialect));
      }
      // Every CHECK exists on its table under its name.
      for (const { table, check } of KERNEL_CHECKS) {
        const live = snapshot.tables.find((t) => t.name === table);
        expect(live?.constraints, `${table}: ${check}`).toContainEqual(
          expect.objectContaining({ name: check, kind: "check" }),
        );
      }
      // Every index of every kernel table: name, columns in order, unique, partial.
      for (const table of dialectTables(harness.dialect)) {
        const live = snapshot.tables.find((t) => t.name === table);
        expect(
          [...(live?.indexes ?? [])]
            .sort((a, b) => compareCodePoints(a.name, b.name))
            .map((i) => ({
              name: i.name,
              columns: i.columns,
              ...(i.unique ? { unique: true } : {}),
              ...(i.partial ? { partial: true } : {}),
            })),
          `${table}: indexes missing from or extra to test/store/catalog.ts (KERNEL_INDEXES)`,
        ).toEqual(
          [
            ...(KERNEL_INDEXES[table] ?? []),
            ...(DIALECT_INDEXES[harness.dialect][table] ?? []),
          ].sort((a, b) => compareCodePoints(a.name, b.name)),
        );
      }
      // The seed's indexes all exist; Keel's additions to seed tables (the claim and reap scans
      // of migration 023) are listed in KERNEL_INDEXES, checked above.
      for (const [table, indexes] of Object.entries(SEED_INDEXES)) {
        const live = snapshot.tables.find((t) => t.name === table);
        expect(live?.indexes.map((i) => i.name).sort(), table).toEqual(
          expect.arrayContaining([...indexes]),
        );
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
      const { db } = await harness.migrated("naming");
      const store = await track(openStore({ db }));
      const snapshot = await backendOf(store).introspect(store.kysely);
      expect(snapshot.tables.length).toBe(dialectTables(harness.dialect).length);
      expect(checkNamingRules(snapshot, KERNEL_NAMING)).toEqual([]);
      // The one rule about SQL text: every kernel migration writes keywords UPPERCASE.
      for (const file of loadMigrationFiles(kernelMigrationsDir(harness.dialect))) {
        expect(checkSqlKeywordCase(file.sql, file.name), file.name).toEqual([]);
      }
      // A 1:1 table keyed by its parent names its key as the foreign key it is (run_id).
      const documents = snapshot.tables.find((t) => t.name === "state_run_documents");
      expect(documents?.primaryKey).toEqual(["run_id"]);
      expect(documents?.foreignKeys).toEqual([
        { columns: ["run_id"], table: "state_runs", referencedColumns: ["id"] },
      ]);
      // Every _at column is an integer type wide enough for milliseconds.
      for (const table of snapshot.tables) {
        for (const column of table.columns.filter((c) => c.name.endsWith("_at"))) {
          expect(column.type, `${table.name}.${column.name}`).toBe(
            harness.dialect === "sqlite" ? "INTEGER" : "BIGINT",
          );
        }
      }
    });

    it("refuses a write that breaks each CHECK of every kernel table, naming the constraint", async () => {
      const { db } = await harness.migrated("checks");
      const store = await track(openStore({ db }));
      const insert = (table: string, row: Record<string, unknown>) =>
        store.kysely
          .insertInto(table as never)
          .values(row as never)
          .execute();
      for (const table of PARENT_TABLES) await insert(table, validRow(table));
      for (const { table, check, bad } of KERNEL_CHECKS) {
        await expect(insert(table, validRow(table, bad)), check).rejects.toThrow(
          new RegExp(`\\b${check}\\b`),
        );
      }
      // The rows themselves are fine: each table takes its valid row.
      for (const table of new Set(KERNEL_CHECKS.map((c) => c.table))) {
        if (!PARENT_TABLES.includes(table)) await insert(table, validRow(table));
      }
      const jobs = await store.kysely.selectFrom("state_jobs").select("id").execute();
      expect(jobs).toEqual([{ id: "valid" }]);
    });

    it("refuses NULL in every NOT NULL column and fills every default, on every kernel table", async () => {
      const { db } = await harness.migrated("not-null");
      const store = await track(openStore({ db }));
      const insert = (table: string, row: Record<string, unknown>) =>
        store.kysely
          .insertInto(table as never)
          .values(row as never)
          .execute();
      const tables = [
        ...PARENT_TABLES,
        ...Object.keys(KERNEL_TABLES).filter((t) => !PARENT_TABLES.includes(t)),
      ];
      for (const table of tables) {
        const columns = (KERNEL_TABLES[table] ?? []).map((spec) => spec.split(" "));
        for (const [name = "", type] of columns.filter((c) => c.join(" ").includes("NOT NULL"))) {
          // NULL asks for the next id: SERIAL columns, and on SQLite an INTEGER primary key of
          // one column (a rowid alias), which the audit log's seq is (migration 011), as is the
          // one-row scan_results' id (migration 022).
          const rowid =
            harness.dialect === "sqlite" &&
            ["state_audit_events.seq", "scan_results.id"].includes(`${table}.${name}`);
          if (type === "SERIAL" || rowid) continue;
          await expect(
            insert(table, validRow(table, { [name]: null })),
            `${table}.${name}`,
          ).rejects.toThrow(/NOT NULL|null value/i);
        }
        const row = validRow(table);
        await insert(table, row);
        const [stored] = await store.kysely
          .selectFrom(table as never)
          .selectAll()
          .execute();
        for (const spec of KERNEL_TABLES[table] ?? []) {
          const [name = ""] = spec.split(" ");
          const text = /DEFAULT (.+)$/.exec(spec)?.[1];
          if (text !== undefined && !(name in row)) {
            expect((stored as Record<string, unknown>)[name], `${table}.${name}`).toEqual(
              defaultValueOf(text),
            );
          }
        }
      }
    });

    it("allows one active job per (action, version, node, content hash), any number of finished ones", async () => {
      const { db } = await harness.migrated("active");
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
      const { db } = await harness.migrated("tx");
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
      const { db } = await harness.migrated("millis");
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

    it("a read-only open and a dry run change nothing: no file, folder, lock file or table", async () => {
      const { db, dir } = await harness.fresh("read-only");
      const { migrate } = await import("../../src/store/migrate/migrate.js");
      const before = listing(dir);
      const fresh = await openStore({ db, readOnly: true });
      const planned = await migrate(fresh, { dryRun: true });
      expect(planned.kernel).toMatchObject({ from: 0, to: latest, backupPath: null });
      expect(planned.kernel.applied).toHaveLength(latest);
      await fresh.close();
      expect(listing(dir)).toEqual(before); // SQLite: no .keel folder, no keel.db, no lock file
      const probe = await track(openStore({ db, autoMigrate: false }));
      expect(await backendOf(probe).tableExists(probe.kysely, "config_schema_versions")).toBe(
        false,
      );
      await probe.close();

      // An existing database with a migration pending: the dry run plans it, takes no lock.
      await (await openStore({ db })).close();
      const extra = join(tempDir("dry-migrations"), harness.dialect);
      cpSync(kernelMigrationsDir(harness.dialect), extra, { recursive: true });
      const next = String(latest + 1).padStart(3, "0");
      writeFileSync(
        join(extra, `${next}_dry.sql`),
        "CREATE TABLE state_dries (id TEXT PRIMARY KEY);\n",
      );
      const files = listing(dir);
      const existing = await openStore({ db, readOnly: true, migrationsDir: extra });
      expect((await migrate(existing, { dryRun: true })).kernel.applied).toEqual([
        { version: latest + 1, name: `${next}_dry` },
      ]);
      // Read-only means read-only: the engine refuses a write.
      await expect(
        existing.kysely
          .insertInto("config_preferences")
          .values({ key: "x", value_json: "1", updated_at: 1 })
          .execute(),
      ).rejects.toThrow(/read.?only/i);
      await existing.close();
      expect(listing(dir)).toEqual(files); // no lock file, no -wal/-shm left, same bytes
      const after = await track(openStore({ db, autoMigrate: false }));
      expect(await backendOf(after).tableExists(after.kysely, "state_dries")).toBe(false);
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
      const backend2 = await openBackend(resolveStoreLocation({ db }), { readOnly: true });
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
      // Every schema object as the engine keeps it (triggers, comments, the Postgres
      // user_version comment included) and the ledger's rows: "as before" means all of it.
      const objectsBefore = await backendOf(first).schemaObjects(first.kysely);
      const ledgerOf = (store: Store) =>
        store.kysely.selectFrom("config_schema_versions").selectAll().orderBy("version").execute();
      const ledgerBefore = await ledgerOf(first);
      await first.close();

      const broken = join(tempDir("broken-migrations"), harness.dialect);
      cpSync(kernelMigrationsDir(harness.dialect), broken, { recursive: true });
      const next = String(latest + 1).padStart(3, "0");
      // Valid SQL that fails while it runs, after its first two statements took effect (the
      // third breaks the primary key of the table the first created): Postgres parses a
      // syntax error before running anything, so only a run-time failure is halfway.
      writeFileSync(
        join(broken, `${next}_half_done.sql`),
        [
          "CREATE TABLE state_half_dones (id TEXT PRIMARY KEY);",
          "INSERT INTO state_half_dones (id) VALUES ('first');",
          "INSERT INTO state_half_dones (id) VALUES ('first');",
          "",
        ].join("\n"),
      );
      const failure = await openStore({ db, migrationsDir: broken }).catch(
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: "MIGRATION_FAILED", exitCode: 2 });
      const message = String((failure as Error).message);
      expect(message).toMatch(new RegExp(`${next}_half_done failed and was rolled back`));
      expect(message).toMatch(/state_half_dones|unique/i); // it failed on the third statement

      const after = await track(openStore({ db }));
      expect(await backendOf(after).tableExists(after.kysely, "state_half_dones")).toBe(false);
      expect(await backendOf(after).introspect(after.kysely)).toEqual(before);
      expect(await backendOf(after).schemaObjects(after.kysely)).toEqual(objectsBefore);
      expect(await ledgerOf(after)).toEqual(ledgerBefore);
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
      } else {
        // Postgres writes no pre-migrate backup: transactional DDL rolls the whole file back.
        expect((failure as { details: { backupPath: string | null } }).details.backupPath).toBe(
          null,
        );
      }
    });

    it("runs raw SQL through kysely with the dialect's placeholders", async () => {
      const { db } = await harness.migrated("raw");
      const store = await track(openStore({ db }));
      const result = await sql<{ n: number }>`SELECT ${41} + 1 AS n`.execute(store.kysely);
      expect(Number(result.rows[0]?.n)).toBe(42);
    });
  });
}

/** Every file under `dir` with its bytes (base64), for "nothing changed" checks. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[full.slice(dir.length)] = readFileSync(full).toString("base64");
    }
  };
  walk(dir);
  return out;
}
