// The ledger reads and the operator-output check moved down to the runtime (keel serve uses
// them too); re-exported here.
export {
  checkOperatorOutput,
  type LedgerDetail,
  type LedgerEntry,
  listLapsedCalls,
  listToolCalls,
  type OutputCheck,
  type ToolCallFilter,
  toolCallDetail,
} from "../../runtime/index.js";
