import { runApprovalCases } from "./approvals.case.js";
import { runAuditCases } from "./audit.case.js";
import { runGovernedCases } from "./governed.case.js";
import { runIngestCases } from "./ingest.case.js";
import { runLedgerCases } from "./ledger.case.js";
import { runLedgerWriterCases } from "./ledger-writers.case.js";
import { sqliteRuntimeHarness } from "./support/harness.js";

runAuditCases(sqliteRuntimeHarness());
runLedgerCases(sqliteRuntimeHarness());
runLedgerWriterCases(sqliteRuntimeHarness());
runApprovalCases(sqliteRuntimeHarness());
runIngestCases(sqliteRuntimeHarness());
runGovernedCases(sqliteRuntimeHarness());
