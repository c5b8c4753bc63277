import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runApprovalCases } from "./approvals.case.js";
import { runAuditCases } from "./audit.case.js";
import { runGovernedCases } from "./governed.case.js";
import { runIngestCases } from "./ingest.case.js";
import { runLedgerCases } from "./ledger.case.js";
import { runLedgerMigrationCases } from "./ledger-migration.case.js";
import { runLedgerWriterCases } from "./ledger-writers.case.js";
import { postgresRuntimeHarness } from "./support/harness.js";

if (await postgresAvailable()) {
  runAuditCases(postgresRuntimeHarness());
  runLedgerCases(postgresRuntimeHarness());
  runLedgerWriterCases(postgresRuntimeHarness());
  runLedgerMigrationCases(postgresRuntimeHarness());
  runApprovalCases(postgresRuntimeHarness());
  runIngestCases(postgresRuntimeHarness());
  runGovernedCases(postgresRuntimeHarness());
} else {
  describe.skip("runtime on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}
