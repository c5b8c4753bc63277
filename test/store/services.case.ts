import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { compareCodePoints } from "../../src/core/index.js";
import { backupStore } from "../../src/store/backup/backup.js";
import { resetStore } from "../../src/store/backup/reset.js";
import { restoreStore } from "../../src/store/backup/restore.js";
import {
  type KvStore,
  openStore,
  PluginManifest,
  pluginStorage,
  type Store,
} from "../../src/store/index.js";
import {
  getPreference,
  listPreferences,
  setPreference,
  unsetPreference,
} from "../../src/store/preferences/preferences.js";
import { job } from "./catalog.js";
import type { DialectHarness } from "./harness.js";

/** A run with its document, and a thread with a pending write: rows whose parents must exist. */
async function seedLinked(store: Store): Promise<void> {
  await sql`INSERT INTO state_threads (id, created_at, updated_at) VALUES ('t1', 1, 1)`.execute(
    store.kysely,
  );
  await sql`INSERT INTO state_checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value_json, value_hash)
    VALUES ('t1', '', 'c1', 'task', 0, 'x', '1', 'h')`.execute(store.kysely);
  await sql`INSERT INTO state_runs (id, thread_id, status, trace_id, created_at, updated_at)
    VALUES ('r1', 't1', 'paused', 'trace', 1, 1)`.execute(store.kysely);
  await sql`INSERT INTO state_run_documents (run_id, document_path, document_id, graph_hash, input_json, created_at)
    VALUES ('r1', '/doc.json', 'g', 'hash', '{}', 1)`.execute(store.kysely);
}

async function seed(store: Store): Promise<void> {
  await store.kysely.insertInto("state_jobs").values(job("j1", "queued")).execute();
  await store.kysely
    .insertInto("config_preferences")
    .values({ key: "theme", value_json: '"dark"', updated_at: 1 })
    .execute();
  await store.kysely
    .insertInto("scan_nodes")
    .values({
      path: "skills/a.md",
      kind: "skill",
      adapter: "claude",
      title: null,
      description: null,
      stability: null,
      version: null,
      author: null,
      frontmatter_json: "{}",
      body_hash: "00",
      frontmatter_hash: "00",
      bytes_frontmatter: 1,
      bytes_body: 1,
      bytes_total: 2,
      tokens_frontmatter: null,
      tokens_body: null,
      tokens_total: null,
      scanned_at: 1,
    })
    .execute();
  await store.kysely
    .insertInto("scan_links")
    .values({
      source_path: "a",
      target_path: "b",
      kind: "invokes",
      confidence: "high",
      sources_json: "[]",
    } as never)
    .execute();
}

/** Backup, restore, reset and preferences, on each dialect. */
export function runStoreServices(harness: DialectHarness): void {
  const stores: Store[] = [];
  const open = async (db: string) => {
    const store = await openStore({ db });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
    await harness.cleanup();
  });

  describe(`store services: ${harness.dialect}`, () => {
    it("backs up the state and config zones into a SQLite file, without scan rows", async () => {
      const { db, dir } = await harness.migrated("backup");
      const store = await open(db);
      await seed(store);
      const out = join(dir, "snap.db");
      const result = await backupStore(store, { out });
      expect(result.path).toBe(out);
      expect(result.tables).toContainEqual({ name: "state_jobs", rows: 1 });
      expect(result.tables).toContainEqual({ name: "config_preferences", rows: 1 });
      expect(result.tables.some((t) => t.name.startsWith("scan_"))).toBe(false);
      const copy = new Database(out, { readonly: true });
      expect(copy.prepare("SELECT count(*) FROM scan_nodes").pluck().get()).toBe(0);
      expect(copy.prepare("SELECT id FROM state_jobs").pluck().all()).toEqual(["j1"]);
      expect(
        copy.prepare("SELECT count(*) FROM config_schema_versions").pluck().get(),
      ).toBeGreaterThan(0);
      copy.close();
      const defaultPath = await backupStore(store);
      expect(defaultPath.path).toMatch(/backups[/\\]\d{4}-\d\d-\d\dT[\d-]+Z\.db$/);
    });

    // Regression: the Postgres backup copied tables in name order, so children came before
    // their parents (state_run_documents before state_runs, state_checkpoint_writes before
    // state_threads) and the SQLite copy, foreign keys on, refused them.
    it("backs up and restores rows of tables with foreign keys (runs, run documents, threads)", async () => {
      const { db, dir } = await harness.migrated("backup-fk");
      let store = await open(db);
      await seedLinked(store);
      const { path } = await backupStore(store, { out: join(dir, "linked.db") });
      const copy = new Database(path, { readonly: true });
      expect(copy.prepare("SELECT run_id FROM state_run_documents").pluck().all()).toEqual(["r1"]);
      expect(copy.prepare("SELECT count(*) FROM state_checkpoint_writes").pluck().get()).toBe(1);
      expect(copy.pragma("foreign_key_check")).toEqual([]);
      copy.close();
      await sql`DELETE FROM state_runs`.execute(store.kysely);
      await sql`DELETE FROM state_threads`.execute(store.kysely);
      await store.close();
      await restoreStore(store.location, path);
      store = await open(db);
      const documents = await sql<{
        id: string;
      }>`SELECT d.run_id AS id FROM state_run_documents d JOIN state_runs r ON r.id = d.run_id`.execute(
        store.kysely,
      );
      expect(documents.rows).toEqual([{ id: "r1" }]);
      const writes = await sql<{
        n: number | string;
      }>`SELECT count(*) AS n FROM state_checkpoint_writes`.execute(store.kysely);
      expect(Number(writes.rows[0]?.n)).toBe(1);
    });

    it("restores a backup: state and config come back as they were, scan comes back empty", async () => {
      const { db, dir } = await harness.migrated("restore");
      let store = await open(db);
      await seed(store);
      const { path } = await backupStore(store, { out: join(dir, "before.db") });
      await store.kysely.deleteFrom("state_jobs").execute();
      await store.kysely
        .insertInto("config_preferences")
        .values({ key: "later", value_json: "1", updated_at: 2 })
        .execute();
      await store.close();
      const result = await restoreStore(store.location, path);
      expect(result.version).toBeGreaterThan(0);
      if (harness.dialect === "sqlite") {
        expect(result.previousMovedTo).not.toBeNull();
        expect(existsSync(result.previousMovedTo ?? "")).toBe(true);
      }
      store = await open(db);
      expect(await store.kysely.selectFrom("state_jobs").select("id").execute()).toEqual([
        { id: "j1" },
      ]);
      const keys = await store.kysely.selectFrom("config_preferences").select("key").execute();
      expect(keys).toEqual([{ key: "theme" }]);
      expect(await store.kysely.selectFrom("scan_nodes").selectAll().execute()).toEqual([]);
      // Still a working database: writes go through.
      await store.kysely
        .insertInto("state_jobs")
        .values(job("j2", "running", { content_hash: "x" }))
        .execute();
    });

    it("refuses to restore a file that is not a Keel backup, and a backup from a newer Keel", async () => {
      const { db, dir } = await harness.migrated("restore-bad");
      const store = await open(db);
      const text = join(dir, "notes.txt");
      writeFileSync(text, "not a database at all\n".repeat(50));
      await expect(restoreStore(store.location, text)).rejects.toMatchObject({
        code: "STORE_NOT_A_DATABASE",
      });
      await expect(restoreStore(store.location, join(dir, "missing.db"))).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      const { path } = await backupStore(store, { out: join(dir, "future.db") });
      const future = new Database(path);
      future
        .prepare("INSERT INTO config_schema_versions VALUES ('kernel', 'kernel', 99, 'future', 1)")
        .run();
      future.close();
      await expect(restoreStore(store.location, path)).rejects.toMatchObject({
        code: "STORE_TOO_NEW",
      });
    });

    it("reset empties the scan and state zones and keeps config and the schema", async () => {
      const { db } = await harness.migrated("reset");
      const store = await open(db);
      await seed(store);
      const result = await resetStore(store);
      expect(result.tables).toContainEqual({ name: "state_jobs", rowsDeleted: 1 });
      expect(result.tables).toContainEqual({ name: "scan_nodes", rowsDeleted: 1 });
      expect(result.tables.some((t) => t.name.startsWith("config_"))).toBe(false);
      expect(await store.kysely.selectFrom("state_jobs").selectAll().execute()).toEqual([]);
      expect(await store.kysely.selectFrom("scan_links").selectAll().execute()).toEqual([]);
      expect(await store.kysely.selectFrom("config_preferences").select("key").execute()).toEqual([
        { key: "theme" },
      ]);
      await store.kysely.insertInto("state_jobs").values(job("again", "queued")).execute();
      const ids = await store.kysely
        .insertInto("scan_links")
        .values({
          source_path: "a",
          target_path: "b",
          kind: "invokes",
          confidence: "high",
          sources_json: "[]",
        } as never)
        .returning("id")
        .execute();
      expect(Number(ids[0]?.id)).toBe(1);
    });

    it("lists names in code-point order, the same on every machine: preferences, reset tables, kv keys", async () => {
      const { db } = await harness.migrated("order");
      const store = await open(db);
      for (const key of ["beta", "Zeta", "alpha"]) await setPreference(store, key, 1);
      // Code points: uppercase before lowercase (a locale order would put Zeta last).
      expect((await listPreferences(store)).map((e) => e.key)).toEqual([
        "Zeta",
        "alpha",
        "auto_migrate",
        "beta",
        "rules.max_facts",
        "rules.max_firings",
        "rules.max_loop_iterations",
        "rules.max_run_ms",
      ]);
      await sql`CREATE TABLE state_a_items (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await sql`CREATE TABLE state_a2_items (id TEXT PRIMARY KEY)`.execute(store.kysely);
      const names = (await resetStore(store)).tables.map((t) => t.name);
      // "2" (U+0032) before "_" (U+005F); a locale order puts the underscore first.
      expect(names.indexOf("state_a2_items")).toBeLessThan(names.indexOf("state_a_items"));
      expect(names).toEqual([...names].sort(compareCodePoints));
      const kv = pluginStorage(
        store,
        PluginManifest.parse({ id: "pins", version: "1", storage: { mode: "kv" } }),
      ) as KvStore;
      for (const key of ["b", "B", "a_1", "a1", "é"]) await kv.set(key, 1);
      expect((await kv.list()).map((e) => e.key)).toEqual(["B", "a1", "a_1", "b", "é"]);
      expect((await kv.list({ prefix: "a" })).map((e) => e.key)).toEqual(["a1", "a_1"]);
    });

    it("gets, sets, lists and unsets preferences; validates the ones Keel knows", async () => {
      const { db } = await harness.migrated("prefs");
      const store = await open(db);
      expect(await getPreference(store, "auto_migrate")).toMatchObject({
        value: true,
        source: "default",
      });
      await expect(getPreference(store, "nothing.here")).rejects.toMatchObject({
        code: "NOT_FOUND",
        exitCode: 5,
      });
      await setPreference(store, "jobs.minimum_ttl_seconds", 90);
      await setPreference(store, "jobs.minimum_ttl_seconds", 120);
      expect(await getPreference(store, "jobs.minimum_ttl_seconds")).toMatchObject({
        value: 120,
        source: "set",
      });
      await expect(setPreference(store, "auto_migrate", "sometimes")).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
        message: expect.stringMatching(/auto_migrate must be true or false/),
      });
      await expect(setPreference(store, "bad key!", 1)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await setPreference(store, "auto_migrate", false);
      const list = await listPreferences(store);
      expect(list.map((e) => [e.key, e.value, e.source])).toEqual([
        ["auto_migrate", false, "set"],
        ["jobs.minimum_ttl_seconds", 120, "set"],
        ["rules.max_facts", 100_000, "default"],
        ["rules.max_firings", 10_000, "default"],
        ["rules.max_loop_iterations", 1_000_000, "default"],
        ["rules.max_run_ms", 5_000, "default"],
      ]);
      expect(await unsetPreference(store, "auto_migrate")).toBe(true);
      expect(await unsetPreference(store, "auto_migrate")).toBe(false);
    });
  });
}
