import { runApprovalCases } from "./approvals.case.js";
import { runAuditCases } from "./audit.case.js";
import { runGovernedCases } from "./governed.case.js";
import { runIngestCases } from "./ingest.case.js";
import { runLedgerCases } from "./ledger.case.js";
import { runLedgerMigrationCases } from "./ledger-migration.case.js";
import { runLedgerWriterCases } from "./ledger-writers.case.js";
import { sqliteRuntimeHarness } from "./support/harness.js";

runAuditCases(sqliteRuntimeHarness());
runLedgerCases(sqliteRuntimeHarness());
runLedgerWriterCases(sqliteRuntimeHarness());
runLedgerMigrationCases(sqliteRuntimeHarness());
runApprovalCases(sqliteRuntimeHarness());
runIngestCases(sqliteRuntimeHarness());
runGovernedCases(sqliteRuntimeHarness());
