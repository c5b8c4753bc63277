import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/index.js";
import { callLeaseProcessCases } from "./lease/call-lease.case.js";

callLeaseProcessCases("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-call-lease-"));
  const db = join(dir, "keel.db");
  const store = await openStore({ db, backupBeforeMigrate: false });
  return {
    db,
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
