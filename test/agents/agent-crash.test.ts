import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { migratedSqliteFile } from "../support/templates.js";
import { agentCrashTest } from "./crash/agent-crash.case.js";

// The 30 aimed trials per dialect (each a child process, ~0.5 s of CPU).
const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 30);
const FIRST_SEED = Number(process.env.KEEL_CRASH_SEED ?? 1);

describe("governed agent crash test: SQLite", { timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-agent-crash-"));
  let store: Store | undefined;
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  agentCrashTest(
    "sqlite",
    async () => {
      const db = join(dir, "keel.db");
      // A copy of the migrated template: migrating is not what this test is about.
      await migratedSqliteFile(db);
      store = await openStore({ db, backupBeforeMigrate: false });
      return { db, store, dir };
    },
    TRIALS,
    FIRST_SEED,
  );
});
