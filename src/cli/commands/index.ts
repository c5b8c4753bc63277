import type { CliModule } from "../command.js";
import { actionsCommands } from "./actions.js";
import { approvalsCommands } from "./approvals.js";
import { auditCommands } from "./audit.js";
import { catalogBrowseCommands } from "./catalog-browse.js";
import { catalogGraphCommands } from "./catalog-graph.js";
import { catalogOrphansCommands } from "./catalog-orphans.js";
import { catalogScanCommands } from "./catalog-scan.js";
import { configCommands } from "./config.js";
import { dbCommands } from "./db.js";
import { doctorCommands } from "./doctor.js";
import { helpCommands } from "./help.js";
import { historyCommands } from "./history.js";
import { ingestCommands } from "./ingest.js";
import { irCommands } from "./ir.js";
import { jobCommands } from "./jobs.js";
import { ledgerCommands } from "./ledger.js";
import { mcpCommands } from "./mcp.js";
import { memoryCommands } from "./memory.js";
import { pluginsCommands } from "./plugins.js";
import { recordCommands } from "./record.js";
import { rulesCommands } from "./rules.js";
import { runsCommands } from "./runs.js";
import { serveCommands } from "./serve.js";
import { tokensCommands } from "./tokens.js";
import { versionCommands } from "./version.js";
import { workerCommands } from "./worker.js";

/**
 * Every verb group of the `keel` CLI, in help order. Add a module here to mount it.
 */
export const COMMANDS: readonly CliModule[] = [
  irCommands,
  rulesCommands,
  runsCommands,
  ingestCommands,
  approvalsCommands,
  ledgerCommands,
  auditCommands,
  dbCommands,
  configCommands,
  doctorCommands,
  memoryCommands,
  mcpCommands,
  catalogScanCommands,
  catalogBrowseCommands,
  catalogGraphCommands,
  catalogOrphansCommands,
  pluginsCommands,
  versionCommands,
  helpCommands,
  actionsCommands,
  jobCommands,
  recordCommands,
  historyCommands,
  workerCommands,
  serveCommands,
  tokensCommands,
];
