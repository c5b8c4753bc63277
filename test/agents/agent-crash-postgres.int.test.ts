import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { agentCrashTest } from "./crash/agent-crash.case.js";

// The 30 aimed trials per dialect, as agent-crash.test.ts.
const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 30);
const FIRST_SEED = Number(process.env.KEEL_CRASH_SEED ?? 1);

if (await postgresAvailable()) {
  describe("governed agent crash test: Postgres", { timeout: 900_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-agent-crash-pg-"));
    let store: Store | undefined;
    let drop: (() => Promise<void>) | undefined;
    afterAll(async () => {
      await store?.close();
      await drop?.().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    });
    agentCrashTest(
      "postgres",
      async () => {
        const database = await createMigratedDatabase("agent_crash");
        drop = database.drop;
        store = await openStore({ db: database.url });
        return { db: database.url, store, dir };
      },
      TRIALS,
      FIRST_SEED,
    );
  });
} else {
  describe.skip("governed agent crash test: Postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}
