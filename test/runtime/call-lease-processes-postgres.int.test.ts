import { describe, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { callLeaseProcessCases } from "./lease/call-lease.case.js";

if (await postgresAvailable()) {
  callLeaseProcessCases("postgres", async () => {
    const database = await createMigratedDatabase("call_lease");
    const store = await openStore({ db: database.url });
    return {
      db: database.url,
      store,
      async cleanup() {
        await store.close();
        await database.drop().catch(() => {});
      },
    };
  });
} else {
  describe.skip("ledger leases between processes: Postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}
