import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type DedicatedStore,
  KvKeyInvalidError,
  KvOperationFailedError,
  type KvStore,
  KvValueNotSerializableError,
  KvValueTooLargeError,
  locationOf,
  openStore,
  PluginManifest,
  pluginStorage,
  ScopedDbViolationError,
  type Store,
  type StoreLocation,
} from "../../src/store/index.js";
import { backendOf } from "../../src/store/open-store.js";
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
  const fresh = async (label: string): Promise<{ location: StoreLocation; keelDir: string }> => {
    const { db, dir } = await harness.fresh(label);
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
      const { location, keelDir } = await fresh("dedicated");
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
      writePlugin(
        keelDir,
        "half",
        dedicated("half-done", ["a", "b"], ["migrations/001_init.sql"]),
        {
          "001_init.sql":
            "CREATE TABLE a (id TEXT PRIMARY KEY);\nCREATE TABLE b (id TEXT PRIMARY KEY, oops NOT_A_TYPE(;",
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
      expect(store.openReport.plugins.map((p) => p.pluginId)).toEqual(
        [
          "acme-notes",
          "bad-plugin",
          "half-done",
          "misnamed",
          "Not Kebab",
          "twin",
          "twin",
          "zeta",
        ].sort((a, b) => a.localeCompare(b)),
      );
      expect(byId["acme-notes"]).toMatchObject({
        status: "enabled",
        applied: [{ version: 1 }, { version: 2 }],
      });
      expect(byId.zeta).toMatchObject({ status: "enabled", applied: [{ version: 1 }] });
      expect(byId["bad-plugin"]).toMatchObject({
        status: "load-error",
        reason: expect.stringMatching(/\[rule: foreign-key-to-kernel\]/),
      });
      expect(byId["half-done"]).toMatchObject({ status: "load-error", applied: [] });
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
      for (const sql of [
        "SELECT * FROM state_jobs",
        "DROP TABLE notes",
        "PRAGMA foreign_keys = OFF",
        "ATTACH DATABASE 'x' AS x",
      ]) {
        await expect(db.query(sql)).rejects.toBeInstanceOf(ScopedDbViolationError);
      }
    });
  });
}
