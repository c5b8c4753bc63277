import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { ledgerCrashTest } from "./crash/ledger-crash.case.js";

const TRIALS = Number(process.env.KEEL_CRASH_TRIALS ?? 50);
const FIRST_SEED = Number(process.env.KEEL_CRASH_SEED ?? 1);

if (await postgresAvailable()) {
  describe("ledger crash test: Postgres", { timeout: 900_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-ledger-crash-pg-"));
    let store: Store | undefined;
    let drop: (() => Promise<void>) | undefined;
    afterAll(async () => {
      await store?.close();
      await drop?.().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    });
    ledgerCrashTest(
      "postgres",
      async () => {
        const database = await createMigratedDatabase("ledger_crash");
        drop = database.drop;
        store = await openStore({ db: database.url });
        return { db: database.url, store, dir };
      },
      TRIALS,
      FIRST_SEED,
    );
  });
} else {
  describe.skip("ledger crash test: Postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}
