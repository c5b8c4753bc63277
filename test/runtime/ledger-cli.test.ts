import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "../../src/store/index.js";
import { runLedgerCliCases } from "./ledger-cli.case.js";

const dirs: string[] = [];
const stores: Store[] = [];
runLedgerCliCases({
  dialect: "sqlite",
  async open(label) {
    const dir = mkdtempSync(join(tmpdir(), `keel-ledger-cli-${label}-`));
    dirs.push(dir);
    const db = join(dir, "keel.db");
    const store = await openStore({ db, backupBeforeMigrate: false });
    stores.push(store);
    return { store, db };
  },
  async cleanup() {
    for (const store of stores) await store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  },
});
