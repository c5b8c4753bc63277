import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { type KvStore, openStore, PluginManifest, pluginStorage } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";
import { runConcurrentStart } from "./concurrent-start.case.js";
import { runDoctorCases } from "./doctor.case.js";
import { postgresHarness } from "./harness.js";
import { runPluginStorage } from "./plugins.case.js";
import { runStoreServices } from "./services.case.js";
import { runStoreConformance } from "./store.case.js";

if (await postgresAvailable()) {
  runStoreConformance(postgresHarness());
  runStoreServices(postgresHarness());
  runPluginStorage(postgresHarness());
  runConcurrentStart(postgresHarness());
  runDoctorCases(postgresHarness());
} else {
  describe.skip("store conformance: postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

describe("store on a Postgres database with a locale collation", () => {
  // Migrates a database of its own from nothing (no template carries an ICU locale).
  it("lists KV keys in code-point order and finds them by prefix, whatever the database's collation", {
    timeout: 180_000,
  }, async () => {
    if (!(await postgresAvailable())) return;
    // ICU's English collation: "B" after "a", "_" before digits — not code-point order. Made by
    // createTestDatabase, so that a run's teardown drops it with the others: a DROP DATABASE of
    // its own forced a checkpoint of every other test's dirty pages (over a minute under load).
    const database = await createTestDatabase("store_icu", { icuLocale: "en" });
    try {
      const store = await openStore({ db: database.url });
      try {
        const locale = await sql<{ key: string }>`
          SELECT k AS key FROM unnest(ARRAY['b', 'B', 'a_1', 'a1']) AS k ORDER BY k`.execute(
          store.kysely,
        );
        expect(locale.rows.map((r) => r.key)).not.toEqual(["B", "a1", "a_1", "b"]);
        const kv = pluginStorage(
          store,
          PluginManifest.parse({ id: "pins", version: "1", storage: { mode: "kv" } }),
        ) as KvStore;
        for (const key of ["b", "B", "a_1", "a1", "é"]) await kv.set(key, 1);
        expect((await kv.list()).map((e) => e.key)).toEqual(["B", "a1", "a_1", "b", "é"]);
        expect((await kv.list({ prefix: "a" })).map((e) => e.key)).toEqual(["a1", "a_1"]);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
