import { describe, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { runLedgerCliCases } from "./ledger-cli.case.js";

if (await postgresAvailable()) {
  const drops: (() => Promise<void>)[] = [];
  const stores: Store[] = [];
  runLedgerCliCases({
    dialect: "postgres",
    async open(label) {
      const database = await createMigratedDatabase(`ledger_cli_${label}`);
      drops.push(database.drop);
      const store = await openStore({ db: database.url });
      stores.push(store);
      return { store, db: database.url };
    },
    async cleanup() {
      for (const store of stores) await store.close();
      for (const drop of drops) await drop().catch(() => {});
    },
  });
} else {
  describe.skip("keel ledger on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}
