import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/store/doctor/doctor.js";
import {
  type DedicatedStore,
  discoverStorePlugins,
  KvKeyInvalidError,
  KvOperationFailedError,
  type KvStore,
  KvValueNotSerializableError,
  KvValueTooLargeError,
  locationOf,
  migrateStorePlugins,
  openStore,
  PluginManifest,
  pluginStorage,
  ScopedDbViolationError,
  type Store,
  type StoreLocation,
} from "../../src/store/index.js";
import { applyMigration } from "../../src/store/migrate/apply-migration.js";
import { backendOf } from "../../src/store/open-store.js";
import { pluginMigrationGuard } from "../../src/store/plugins/plugin-schema-guard.js";
import type { DialectHarness } from "./harness.js";

function writePlugin(
  keelDir: string,
  folder: string,
  manifest: object,
  migrations: Record<string, string> = {},
) {
  const dir = join(keelDir, "plugins", folder);
  mkdirSync(join(dir, "migrations"), { recursive: true });
  writeFileSync(join(dir, "plugin.json"), JSON.stringify(manifest));
  for (const [name, sql] of Object.entries(migrations))
    writeFileSync(join(dir, "migrations", name), sql);
}

function dedicated(id: string, tables: string[], migrations: string[]) {
  return {
    id,
    version: "1.0.0",
    specCompat: "^0.1.0",
    extensions: ["x.js"],
    storage: { mode: "dedicated", tables, migrations },
  };
}

/** Plugin storage on each dialect: the KV accessor and dedicated tables with their migrations. */
export function runPluginStorage(harness: DialectHarness): void {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    await harness.cleanup();
  });
  /** A database at the latest kernel schema (`empty`: one never migrated) and its scope folder. */
  const fresh = async (
    label: string,
    start: "migrated" | "empty" = "migrated",
  ): Promise<{ location: StoreLocation; keelDir: string }> => {
    const { db, dir } = await (start === "empty" ? harness.fresh(label) : harness.migrated(label));
    const keelDir = join(dir, ".keel");
    const base = locationOf(db, dir, keelDir);
    return { location: { ...base, keelDir } as StoreLocation, keelDir };
  };
  const open = async (location: StoreLocation) => {
    const store = await openStore({ location });
    stores.push(store);
    return store;
  };

  describe(`plugin storage: ${harness.dialect}`, () => {
    it("kv: get, set, delete and list, scoped by plugin and node", async () => {
      const { location } = await fresh("kv");
      const store = await open(location);
      const kv = pluginStorage(
        store,
        PluginManifest.parse({ id: "pins", version: "1", storage: { mode: "kv" } }),
      ) as KvStore;
      const other = pluginStorage(
        store,
        PluginManifest.parse({ id: "other", version: "1", storage: { mode: "kv" } }),
      ) as KvStore;
      expect(await kv.get("missing")).toBeNull();
      await kv.set("b.two", { n: 2 });
      await kv.set("a.one", [1, "x", null, true]);
      await kv.set("a.one", [1, "y"]);
      await kv.set("a.one", "node value", { nodePath: "skills/x.md" });
      await other.set("a.one", "not yours");
      expect(await kv.get("a.one")).toEqual([1, "y"]);
      expect(await kv.get("a.one", { nodePath: "skills/x.md" })).toBe("node value");
      expect(await kv.get("a.one", { nodePath: null })).toEqual([1, "y"]);
      const global = await kv.list();
      expect(global.map((e) => [e.key, e.nodePath])).toEqual([
        ["a.one", null],
        ["b.two", null],
      ]);
      expect(typeof global[0]?.updatedAt).toBe("number");
      expect((await kv.list({ prefix: "b." })).map((e) => e.key)).toEqual(["b.two"]);
      expect(
        (await kv.list({ nodePath: "skills/x.md" })).map((e) => [e.key, e.value, e.nodePath]),
      ).toEqual([["a.one", "node value", "skills/x.md"]]);
      expect(await kv.delete("b.two")).toBe(true);
      expect(await kv.delete("b.two")).toBe(false);
      expect(await other.get("a.one")).toBe("not yours");
      expect(await other.list()).toHaveLength(1);
    });

    it("kv: refuses bad keys and values with typed errors", async () => {
      const { location } = await fresh("kv-errors");
      const store = await open(location);
      const kv = pluginStorage(
        store,
        PluginManifest.parse({ id: "pins", version: "1", storage: { mode: "kv" } }),
      ) as KvStore;
      await expect(kv.set("", 1)).rejects.toBeInstanceOf(KvKeyInvalidError);
      await expect(kv.get(42 as never)).rejects.toBeInstanceOf(KvKeyInvalidError);
      await expect(kv.set("é".repeat(129), 1)).rejects.toBeInstanceOf(KvKeyInvalidError); // 258 bytes
      await kv.set("k".repeat(256), 1); // exactly 256 bytes is allowed
      await expect(kv.set("u", undefined)).rejects.toBeInstanceOf(KvValueNotSerializableError);
      await expect(kv.set("f", { run: () => 1 })).rejects.toBeInstanceOf(
        KvValueNotSerializableError,
      );
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(kv.set("c", cyclic)).rejects.toThrow(/cycle/);
      await expect(kv.set("d", new Date())).rejects.toThrow(/Date, not a plain object/);
      await expect(kv.set("n", Number.NaN)).rejects.toBeInstanceOf(KvValueNotSerializableError);
      await expect(kv.set("big", "x".repeat(1024 * 1024))).rejects.toBeInstanceOf(
        KvValueTooLargeError,
      );
      expect(await kv.list()).toHaveLength(1);
      await store.close();
      const error = await kv.get("k").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KvOperationFailedError);
      expect((error as Error).message).not.toMatch(/SELECT|state_plugin_kv/);
    });

    it("dedicated: migrates plugins after the kernel, alphabetically; a failing plugin is disabled alone", async () => {
      // An empty database: the kernel migrates first in the same open, then the plugins.
      const { location, keelDir } = await fresh("dedicated", "empty");
      writePlugin(
        keelDir,
        "acme",
        dedicated("acme-notes", ["notes"], ["migrations/001_init.sql", "migrations/002_tags.sql"]),
        {
          "001_init.sql":
            "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL);\nCREATE INDEX ix_notes_created_at ON notes (created_at);",
          "002_tags.sql": "ALTER TABLE notes ADD COLUMN tag TEXT;",
        },
      );
      writePlugin(keelDir, "bad", dedicated("bad-plugin", ["links"], ["migrations/001_init.sql"]), {
        "001_init.sql":
          "CREATE TABLE links (id TEXT PRIMARY KEY, job_id TEXT REFERENCES state_jobs (id));",
      });
      // Fails while it runs, after two statements took effect (a syntax error would fail
      // before anything ran on Postgres): the whole file must roll back.
      writePlugin(
        keelDir,
        "half",
        dedicated("half-done", ["alphas", "betas"], ["migrations/001_init.sql"]),
        {
          "001_init.sql": [
            "CREATE TABLE alphas (id TEXT PRIMARY KEY);",
            "CREATE TABLE betas (id TEXT PRIMARY KEY);",
            "INSERT INTO betas (id) VALUES ('x');",
            "INSERT INTO betas (id) VALUES ('x');",
          ].join("\n"),
        },
      );
      writePlugin(
        keelDir,
        "named",
        dedicated("misnamed", ["events"], ["migrations/001_init.sql"]),
        {
          "001_init.sql": "CREATE TABLE events (id TEXT PRIMARY KEY, created_at TEXT NOT NULL);",
        },
      );
      writePlugin(keelDir, "zeta", dedicated("zeta", ["items"], ["migrations/001_init.sql"]), {
        "001_init.sql": "CREATE TABLE items (id TEXT PRIMARY KEY);",
      });
      writePlugin(keelDir, "dup1", { id: "twin", version: "1", storage: { mode: "kv" } });
      writePlugin(keelDir, "dup2", { id: "twin", version: "2", storage: { mode: "kv" } });
      writePlugin(keelDir, "broken", { id: "Not Kebab", version: "1" });

      const store = await open(location);
      const byId = Object.fromEntries(store.openReport.plugins.map((p) => [p.pluginId, p]));
      // Code-point order: "Not Kebab" (U+004E) before every lowercase id.
      expect(store.openReport.plugins.map((p) => p.pluginId)).toEqual([
        "Not Kebab",
        "acme-notes",
        "bad-plugin",
        "half-done",
        "misnamed",
        "twin",
        "twin",
        "zeta",
      ]);
      expect(byId["acme-notes"]).toMatchObject({
        status: "enabled",
        applied: [{ version: 1 }, { version: 2 }],
      });
      expect(byId.zeta).toMatchObject({ status: "enabled", applied: [{ version: 1 }] });
      expect(byId["bad-plugin"]).toMatchObject({
        status: "load-error",
        reason: expect.stringMatching(/\[rule: foreign-key-to-kernel\]/),
      });
      expect(byId["half-done"]).toMatchObject({
        status: "load-error",
        applied: [],
        reason: expect.stringMatching(/001_init failed and was rolled back: .*(betas|unique)/i),
      });
      expect(byId.misnamed).toMatchObject({
        status: "load-error",
        reason: expect.stringMatching(/created_at.*integer.*\[rule: naming\]/),
      });
      expect(byId.twin).toMatchObject({
        status: "invalid-manifest",
        reason: expect.stringMatching(/collides/),
      });
      expect(byId["Not Kebab"]).toMatchObject({
        status: "invalid-manifest",
        reason: expect.stringMatching(/kebab-case/),
      });

      const tables = (await backendOf(store).introspect(store.kysely)).tables.map((t) => t.name);
      expect(tables.filter((t) => t.startsWith("plugin_")).sort()).toEqual([
        "plugin_acme_notes_notes",
        "plugin_zeta_items",
      ]);
      const notes = (await backendOf(store).introspect(store.kysely)).tables.find(
        (t) => t.name === "plugin_acme_notes_notes",
      );
      expect(notes?.indexes.map((i) => i.name)).toEqual(["ix_plugin_acme_notes_notes_created_at"]);
      expect(notes?.columns.map((c) => c.name)).toEqual(["id", "body", "created_at", "tag"]);
      const ledger = await store.kysely
        .selectFrom("config_schema_versions")
        .select(["owner_id", "version"])
        .where("scope", "=", "plugin")
        .orderBy("owner_id")
        .orderBy("version")
        .execute();
      expect(ledger.map((r) => [r.owner_id, Number(r.version)])).toEqual([
        ["acme-notes", 1],
        ["acme-notes", 2],
        ["zeta", 1],
      ]);
      await store.close();
      const again = await open(location);
      expect(again.openReport.plugins.find((p) => p.pluginId === "acme-notes")?.applied).toEqual(
        [],
      );
    });

    it("dedicated: a migration that names a kernel table in a list or as a parent is refused, the kernel intact", async () => {
      const { location, keelDir } = await fresh("dedicated-lists");
      writePlugin(
        keelDir,
        "lists",
        dedicated("lists", ["notes"], ["migrations/001_init.sql", "migrations/002_drop.sql"]),
        {
          "001_init.sql": "CREATE TABLE notes (id TEXT PRIMARY KEY);",
          "002_drop.sql": "DROP TABLE notes, state_executions;",
        },
      );
      writePlugin(keelDir, "heir", dedicated("heir", ["notes"], ["migrations/001_init.sql"]), {
        "001_init.sql": "CREATE TABLE notes (id TEXT PRIMARY KEY) INHERITS (state_jobs);",
      });
      const store = await open(location);
      const byId = Object.fromEntries(store.openReport.plugins.map((p) => [p.pluginId, p]));
      // Every due file is validated before any applies: a bad 002 leaves 001 unapplied too.
      expect(byId.lists).toMatchObject({
        status: "load-error",
        applied: [],
        reason: expect.stringMatching(
          /002_drop\.sql.*\(state_executions\) \[rule: drop-kernel-table\]/,
        ),
      });
      expect(byId.heir).toMatchObject({
        status: "load-error",
        reason: expect.stringMatching(/\(state_jobs\) \[rule: inherit-foreign-table\]/),
      });
      const tables = (await backendOf(store).introspect(store.kysely)).tables.map((t) => t.name);
      expect(tables).toContain("state_executions");
      expect(tables).not.toContain("plugin_lists_notes");
      expect(tables).not.toContain("plugin_heir_notes");
    });

    it("dedicated: the schema backstop rolls back a migration that changed a table the plugin does not own", async () => {
      const { location } = await fresh("dedicated-backstop");
      const store = await open(location);
      const backend = backendOf(store);
      const before = await backend.introspect(store.kysely);
      // SQL the validator would refuse, run straight through the guard: the backstop alone stops it.
      const attempt = (sql: string) =>
        applyMigration(backend, store.kysely, {
          scope: "plugin",
          ownerId: "sneaky",
          file: { version: 1, name: "001_init", description: "init", file: "001_init.sql", sql },
          sql,
          appliedAt: 1,
          mirrorUserVersion: false,
          guard: pluginMigrationGuard(backend, {
            pluginId: "sneaky",
            prefix: "plugin_sneaky_",
            file: "001_init",
            owns: (table) => table === "plugin_sneaky_notes",
          }),
        });
      for (const sql of [
        "CREATE TABLE plugin_sneaky_notes (id TEXT PRIMARY KEY);\nDROP TABLE state_executions;",
        "CREATE TABLE plugin_sneaky_notes (id TEXT PRIMARY KEY);\nCREATE INDEX ix_state_jobs_nonce ON state_jobs (nonce);",
        "CREATE TABLE plugin_sneaky_notes (id TEXT PRIMARY KEY);\nALTER TABLE config_plugins ADD COLUMN spy TEXT;",
        "CREATE TABLE plugin_sneaky_notes (id TEXT PRIMARY KEY, job_id TEXT REFERENCES state_jobs (id));",
        "CREATE TABLE plugin_sneaky_others (id TEXT PRIMARY KEY);",
      ]) {
        await expect(attempt(sql), sql).rejects.toMatchObject({
          code: "PLUGIN_FORBIDDEN_SQL",
          rule: "kernel-schema-changed",
        });
      }
      expect(await backend.introspect(store.kysely)).toEqual(before);
      const ledger = await store.kysely
        .selectFrom("config_schema_versions")
        .select("owner_id")
        .where("scope", "=", "plugin")
        .execute();
      expect(ledger).toEqual([]);
      // A sequence that a column owns belongs to that column's table: no false alarm.
      const key = harness.dialect === "postgres" ? "SERIAL" : "INTEGER";
      expect(await attempt(`CREATE TABLE plugin_sneaky_notes (id ${key} PRIMARY KEY);`)).toBe(true);
    });

    it("dedicated: a plugin owns its declared tables only, never another plugin's under a longer prefix", async () => {
      const { location, keelDir } = await fresh("dedicated-nested");
      writePlugin(keelDir, "acme", dedicated("acme", ["notes"], ["migrations/001_init.sql"]), {
        "001_init.sql": "CREATE TABLE notes (id TEXT PRIMARY KEY);",
      });
      writePlugin(keelDir, "acme-b", dedicated("acme-b", ["notes"], ["migrations/001_init.sql"]), {
        "001_init.sql": "CREATE TABLE notes (id TEXT PRIMARY KEY);",
      });
      writePlugin(keelDir, "acme-kv", { id: "acme-kv", version: "1", storage: { mode: "kv" } });
      const store = await open(location);
      const byId = Object.fromEntries(store.openReport.plugins.map((p) => [p.pluginId, p]));
      for (const id of ["acme", "acme-b"]) {
        expect(byId[id]).toMatchObject({
          status: "invalid-manifest",
          reason: expect.stringMatching(
            /plugin_acme_.*plugin_acme_b_|plugin_acme_b_.*plugin_acme_/,
          ),
        });
      }
      expect(byId["acme-kv"]).toBeUndefined(); // kv: no tables, no prefix to clash
      const manifest = PluginManifest.parse(
        dedicated("acme", ["notes"], ["migrations/001_init.sql"]),
      );
      await expect(
        (pluginStorage(store, manifest) as DedicatedStore).db.query("SELECT 1"),
      ).rejects.toMatchObject({ code: "PLUGIN_STORAGE" });
      // acme-b is uninstalled, its table left behind; acme alone migrates but must not reach it.
      await sql`CREATE TABLE plugin_acme_b_notes (id TEXT PRIMARY KEY)`.execute(store.kysely);
      await sql`INSERT INTO plugin_acme_b_notes (id) VALUES ('theirs')`.execute(store.kysely);
      await store.close();
      rmSync(join(keelDir, "plugins", "acme-b"), { recursive: true });
      const reopened = await open(location);
      expect(reopened.openReport.plugins.find((p) => p.pluginId === "acme")).toMatchObject({
        status: "enabled",
      });
      const { db } = pluginStorage(reopened, manifest) as DedicatedStore;
      expect(await db.query("SELECT * FROM notes")).toEqual([]);
      await expect(db.query("SELECT * FROM plugin_acme_b_notes")).rejects.toMatchObject({
        rule: "foreign-table",
      });
      await expect(db.execute("DELETE FROM plugin_acme_b_notes")).rejects.toMatchObject({
        rule: "foreign-table",
      });
      const rows = await sql<{ id: string }>`SELECT id FROM plugin_acme_b_notes`.execute(
        reopened.kysely,
      );
      expect(rows.rows).toEqual([{ id: "theirs" }]);
    });

    it("dedicated: a failed plugin stays load-error for later opens, loaders and doctor until its migration applies", async () => {
      const { location, keelDir } = await fresh("dedicated-failed");
      const manifest = dedicated("half", ["entries"], ["migrations/001_init.sql"]);
      // Fails at run time: the second INSERT breaks the primary key.
      writePlugin(keelDir, "half", manifest, {
        "001_init.sql":
          "CREATE TABLE entries (id TEXT PRIMARY KEY);\nINSERT INTO entries (id) VALUES ('a');\nINSERT INTO entries (id) VALUES ('a');",
      });
      writePlugin(keelDir, "kept", { id: "kept", version: "1", storage: { mode: "kv" } });
      const first = await open(location);
      expect(first.openReport.plugins).toMatchObject([{ pluginId: "half", status: "load-error" }]);
      await first.close();

      const store = await open(location); // a later open, as another process would
      expect(store.openReport.plugins).toMatchObject([{ pluginId: "half", status: "load-error" }]);
      const found = Object.fromEntries((await discoverStorePlugins(store)).map((p) => [p.id, p]));
      expect(found.half).toMatchObject({
        status: "load-error",
        statusReason: expect.stringMatching(/its migration failed: .*001_init/),
      });
      expect(found.kept).toMatchObject({ status: "enabled" });
      const storage = pluginStorage(store, PluginManifest.parse(manifest)) as DedicatedStore;
      await expect(storage.db.query("SELECT * FROM entries")).rejects.toMatchObject({
        code: "PLUGIN_STORAGE",
        message: expect.stringMatching(/"half" is load-error/),
      });
      const dry = await migrateStorePlugins(store, { dryRun: true });
      expect(dry).toMatchObject([
        {
          pluginId: "half",
          status: "load-error",
          reason: expect.stringMatching(/last migration attempt failed/),
        },
      ]);
      const doctor = await runDoctor(location);
      expect(doctor.checks.find((c) => c.id === "plugins")).toMatchObject({
        status: "warn",
        message: expect.stringMatching(/half: load-error/),
      });
      await store.close();

      writePlugin(keelDir, "half", manifest, {
        "001_init.sql":
          "CREATE TABLE entries (id TEXT PRIMARY KEY);\nINSERT INTO entries (id) VALUES ('a');",
      });
      const fixed = await open(location);
      expect(fixed.openReport.plugins).toMatchObject([
        { pluginId: "half", status: "enabled", applied: [{ version: 1 }] },
      ]);
      expect((await discoverStorePlugins(fixed)).find((p) => p.id === "half")?.status).toBe(
        "enabled",
      );
      const healed = pluginStorage(fixed, PluginManifest.parse(manifest)) as DedicatedStore;
      expect(await healed.db.query("SELECT id FROM entries")).toEqual([{ id: "a" }]);
      expect(await fixed.kysely.selectFrom("state_plugin_failures").selectAll().execute()).toEqual(
        [],
      );
    });

    it("a plugin switched off in config_plugins: not migrated, disabled for loaders, refused storage, its data kept; on again, it migrates", async () => {
      const { location, keelDir } = await fresh("switched-off");
      const v1 = dedicated("notes", ["entries"], ["migrations/001_init.sql"]);
      const v2 = dedicated(
        "notes",
        ["entries", "archives"],
        ["migrations/001_init.sql", "migrations/002_archives.sql"],
      );
      const init = { "001_init.sql": "CREATE TABLE entries (id TEXT PRIMARY KEY);" };
      writePlugin(keelDir, "notes", v1, init);
      const first = await open(location);
      const kept = pluginStorage(first, PluginManifest.parse(v1)) as DedicatedStore;
      await kept.db.execute("INSERT INTO entries (id) VALUES (?)", ["e1"]);
      await first.kysely
        .insertInto("config_plugins")
        .values({ plugin_id: "notes", enabled: 0, updated_at: 1 })
        .execute();
      await first.close();
      // A new migration while it is off: nothing runs, and it is reported disabled, not pending.
      writePlugin(keelDir, "notes", v2, {
        ...init,
        "002_archives.sql": "CREATE TABLE archives (id TEXT PRIMARY KEY);",
      });
      const manifest = v2;
      const off = await open(location);
      expect(off.openReport.plugins).toEqual([]);
      expect(await backendOf(off).tableExists(off.kysely, "plugin_notes_archives")).toBe(false);
      expect((await discoverStorePlugins(off)).find((p) => p.id === "notes")).toMatchObject({
        status: "disabled",
        statusReason: "disabled by the user (config_plugins)",
      });
      const refused = pluginStorage(off, PluginManifest.parse(manifest)) as DedicatedStore;
      await expect(refused.db.query("SELECT id FROM entries")).rejects.toMatchObject({
        code: "PLUGIN_STORAGE",
        message: expect.stringMatching(/"notes" is disabled/),
      });
      // Its table and rows are still there (a disabled plugin keeps its data).
      const rows = await sql<{ id: string }>`SELECT id FROM plugin_notes_entries`.execute(
        off.kysely,
      );
      expect(rows.rows).toEqual([{ id: "e1" }]);
      await off.kysely
        .updateTable("config_plugins")
        .set({ enabled: 1 })
        .where("plugin_id", "=", "notes")
        .execute();
      await off.close();
      const on = await open(location);
      expect(on.openReport.plugins).toMatchObject([
        { pluginId: "notes", status: "enabled", applied: [{ version: 2 }] },
      ]);
      const back = pluginStorage(on, PluginManifest.parse(manifest)) as DedicatedStore;
      expect(await back.db.query("SELECT id FROM entries")).toEqual([{ id: "e1" }]);
    });

    it("reset empties every plugin table and the kv rows, keeps config_plugins and the plugins' schema", async () => {
      const { location, keelDir } = await fresh("reset-plugins");
      const manifest = dedicated("notes", ["entries"], ["migrations/001_init.sql"]);
      writePlugin(keelDir, "notes", manifest, {
        "001_init.sql": "CREATE TABLE entries (id TEXT PRIMARY KEY, n INTEGER NOT NULL);",
      });
      const store = await open(location);
      const notes = pluginStorage(store, PluginManifest.parse(manifest)) as DedicatedStore;
      await notes.db.execute("INSERT INTO entries (id, n) VALUES (?, ?)", ["a", 1]);
      await notes.db.execute("INSERT INTO entries (id, n) VALUES (?, ?)", ["b", 2]);
      const kv = pluginStorage(
        store,
        PluginManifest.parse({ id: "pins", version: "1", storage: { mode: "kv" } }),
      ) as KvStore;
      await kv.set("k", 1);
      await store.kysely
        .insertInto("config_plugins")
        .values({ plugin_id: "pins", enabled: 1, updated_at: 1 })
        .execute();
      const { resetStore } = await import("../../src/store/index.js");
      const result = await resetStore(store);
      expect(result.tables).toContainEqual({ name: "plugin_notes_entries", rowsDeleted: 2 });
      expect(result.tables).toContainEqual({ name: "state_plugin_kv", rowsDeleted: 1 });
      expect(await notes.db.query("SELECT id FROM entries")).toEqual([]);
      expect(await kv.list()).toEqual([]);
      expect(await store.kysely.selectFrom("config_plugins").select("plugin_id").execute()).toEqual(
        [{ plugin_id: "pins" }],
      );
      // The plugin's migration is still recorded and its table still usable.
      const ledger = await store.kysely
        .selectFrom("config_schema_versions")
        .select(["owner_id", "version"])
        .where("scope", "=", "plugin")
        .execute();
      expect(ledger.map((r) => [r.owner_id, Number(r.version)])).toEqual([["notes", 1]]);
      await notes.db.execute("INSERT INTO entries (id, n) VALUES (?, ?)", ["c", 3]);
      expect(await notes.db.query("SELECT id FROM entries")).toEqual([{ id: "c" }]);
    });

    it("dedicated: the scoped connection works on the plugin's tables and refuses everything else", async () => {
      const { location, keelDir } = await fresh("scoped");
      const manifest = dedicated("acme-notes", ["notes"], ["migrations/001_init.sql"]);
      writePlugin(keelDir, "acme", manifest, {
        "001_init.sql": "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);",
      });
      const store = await open(location);
      const { db } = pluginStorage(store, PluginManifest.parse(manifest)) as DedicatedStore;
      await db.execute("INSERT INTO notes (id, body) VALUES (?, ?)", ["n1", "hello"]);
      expect(await db.query("SELECT id, body FROM notes WHERE id = ?", ["n1"])).toEqual([
        { id: "n1", body: "hello" },
      ]);
      await expect(
        db.transaction(async (tx) => {
          await tx.execute("INSERT INTO notes (id, body) VALUES (?, ?)", ["n2", "lost"]);
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      await db.transaction(async (tx) => {
        await tx.execute("UPDATE notes SET body = ? WHERE id = ?", ["changed", "n1"]);
        await expect(tx.transaction(async () => 1)).rejects.toMatchObject({
          rule: "nested-transaction",
        });
      });
      expect(await db.query("SELECT id, body FROM notes ORDER BY id")).toEqual([
        { id: "n1", body: "changed" },
      ]);
      expect(await db.query("SELECT n.id FROM (notes n CROSS JOIN notes m)")).toHaveLength(1);
      await store.kysely
        .insertInto("config_preferences")
        .values({ key: "secret", value_json: '"kernel"', updated_at: 1 })
        .execute();
      for (const sql of [
        "SELECT * FROM state_jobs",
        "DROP TABLE notes",
        "PRAGMA foreign_keys = OFF",
        "ATTACH DATABASE 'x' AS x",
        "SELECT * FROM (config_preferences)",
        "SELECT * FROM (state_jobs CROSS JOIN notes)",
        "SELECT * FROM (SELECT 1 AS x) j, config_preferences",
        "SELECT * FROM notes WHERE id IN (TABLE config_preferences)",
        "WITH x AS (TABLE config_preferences) SELECT * FROM x",
        "WITH config_preferences AS (SELECT * FROM config_preferences) SELECT * FROM config_preferences",
        "SELECT config_preferences.key FROM notes",
        "SELECT query_to_xml('select * from config_preferences', true, false, '')",
        "SELECT set_config('search_path', 'pg_catalog', false)",
        "SELECT load_extension('/tmp/nothing.so')",
        "SELECT readfile('/etc/passwd')",
        "SELECT * FROM sqlite_master",
        "SELECT * FROM pg_settings",
      ]) {
        const error = await db.query(sql).catch((e: unknown) => e);
        expect(error, sql).toBeInstanceOf(ScopedDbViolationError);
      }
    });
  });
}
