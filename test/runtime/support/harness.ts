import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openStore, type Store } from "../../../src/store/index.js";
import { createTestDatabase } from "../../support/postgres.js";
import { createMigratedDatabase, migratedSqliteFile } from "../../support/templates.js";

/**
 * A dialect as the runtime's database suites drive it: fresh migrated stores (copies of the
 * migrated template), cleaned up after.
 */
export interface RuntimeHarness {
  readonly dialect: "sqlite" | "postgres";
  open(label: string): Promise<Store>;
  /** A fresh store at schema version 0, for migration tests. */
  openUnmigrated(label: string): Promise<Store>;
  /** Runs SQL as the database owner, bypassing the runtime (to simulate tampering or faults). */
  raw(store: Store, statement: string): Promise<void>;
  cleanup(): Promise<void>;
}

export function sqliteRuntimeHarness(): RuntimeHarness {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const openAt = async (label: string, autoMigrate: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), `keel-runtime-${label}-`));
    dirs.push(dir);
    const db = join(dir, "keel.db");
    // A migrated store starts as a copy of the template; an unmigrated one as an empty file.
    if (autoMigrate) await migratedSqliteFile(db);
    const store = await openStore({ db, backupBeforeMigrate: false, autoMigrate });
    stores.push(store);
    return store;
  };
  return {
    dialect: "sqlite",
    open: (label) => openAt(label, true),
    openUnmigrated: (label) => openAt(label, false),
    async raw(store, statement) {
      if (store.native.dialect !== "sqlite") throw new Error("not sqlite");
      store.native.database.exec(statement);
    },
    async cleanup() {
      for (const store of stores) await store.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresRuntimeHarness(): RuntimeHarness {
  const drops: (() => Promise<void>)[] = [];
  const stores: Store[] = [];
  const openAt = async (label: string, autoMigrate: boolean) => {
    const database = autoMigrate
      ? await createMigratedDatabase(`runtime_${label}`)
      : await createTestDatabase(`runtime_${label}`);
    drops.push(database.drop);
    const store = await openStore({ db: database.url, autoMigrate });
    stores.push(store);
    return store;
  };
  return {
    dialect: "postgres",
    open: (label) => openAt(label, true),
    openUnmigrated: (label) => openAt(label, false),
    async raw(store, statement) {
      await sql.raw(statement).execute(store.kysely);
    },
    async cleanup() {
      for (const store of stores) await store.close();
      for (const drop of drops) await drop().catch(() => {});
    },
  };
}

/** The append-only triggers of each guarded table (SQLite has no "disable trigger"). */
const GUARDS: Record<string, string[]> = {
  state_audit_events: ["tr_state_audit_events_no_update", "tr_state_audit_events_no_delete"],
  state_artifacts: [
    "tr_state_artifacts_audit_payload_no_update",
    "tr_state_artifacts_audit_payload_no_delete",
  ],
};

/** Runs `statement` with `table`'s append-only triggers out of the way (tampering). */
export async function tamper(
  harness: RuntimeHarness,
  store: Store,
  statement: string,
  table = "state_audit_events",
): Promise<void> {
  if (harness.dialect === "sqlite") {
    const drops = (GUARDS[table] ?? []).map((name) => `DROP TRIGGER IF EXISTS ${name};`);
    await harness.raw(store, `${drops.join(" ")} ${statement}`);
  } else {
    await harness.raw(
      store,
      `ALTER TABLE ${table} DISABLE TRIGGER USER; ${statement}; ALTER TABLE ${table} ENABLE TRIGGER USER;`,
    );
  }
}

/** Makes every insert into `table` fail inside the database (a real write failure). */
export async function breakInserts(
  harness: RuntimeHarness,
  store: Store,
  table: string,
): Promise<void> {
  if (harness.dialect === "sqlite") {
    await harness.raw(
      store,
      `CREATE TRIGGER tr_test_break_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;`,
    );
  } else {
    await harness.raw(
      store,
      `CREATE FUNCTION fn_test_break_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END; $$;
       CREATE TRIGGER tr_test_break_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION fn_test_break_${table}();`,
    );
  }
}
