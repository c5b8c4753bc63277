import { sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type KvStore, openStore, PluginManifest, pluginStorage } from "../../src/store/index.js";
import { postgresAvailable, relaxCommits, TEST_DATABASE_URL } from "../support/postgres.js";
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
  // Migrates a database of its own from nothing (no template carries an ICU locale): minutes on a loaded machine.
  it("lists KV keys in code-point order and finds them by prefix, whatever the database's collation", {
    timeout: 180_000,
  }, async () => {
    if (!(await postgresAvailable())) return;
    // ICU's English collation: "B" after "a", "_" before digits — not code-point order.
    const name = `keel_store_icu_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(
      `CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8'`,
    );
    await relaxCommits(admin, name);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    try {
      const store = await openStore({ db: url.toString() });
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
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
