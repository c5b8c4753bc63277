export {
  type LedgerDetail,
  type LedgerEntry,
  listLapsedCalls,
  listToolCalls,
  type ToolCallFilter,
  toolCallDetail,
} from "./ledger-read.js";
export { toolCallFromRow, toolResultFromRow } from "./ledger-rows.js";
export { REDACTED, type Redactor, redactSecrets } from "./redact.js";
export { assertSettleable, assertSettledOutput } from "./settle-check.js";
export { type StepScope, type StepTools, stepTools } from "./step-tools.js";
export {
  type ToolCallOutcome,
  type ToolCallRequest,
  ToolLedger,
  type ToolLedgerOptions,
} from "./tool-ledger.js";
