import { describe, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";
import { callLeaseProcessCases } from "./lease/call-lease.case.js";

if (await postgresAvailable()) {
  callLeaseProcessCases("postgres", async () => {
    const database = await createTestDatabase("call_lease");
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
