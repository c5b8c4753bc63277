import type { Store } from "../../store/index.js";
import type { ToolCall } from "../contracts/tool-call.js";
import { runtimeDb } from "../db/tables.js";
import { assertSettledOutput } from "../ledger/settle-check.js";
import { loadGovernedApp } from "./governed-app.js";
import { loadGrant } from "./run-grants.js";

/** Whether an operator's output for a call was checked against the tool's output schema. */
export type OutputCheck =
  | { checked: true }
  | { checked: false; reason: "no-run" | "no-app" | "no-tool" };

/**
 * Checks the output an operator says a call produced against its tool's `output_schema`, with the
 * tool as the run's recorded application module registers it (the CLI has no registry of its
 * own). Refused with every problem (`TOOL_OUTPUT_INVALID`): the run goes on with this output as
 * the call's answer, so it must be what the tool could have returned. A call outside a run, or
 * of a run without a module, cannot be checked and says so.
 */
export async function checkOperatorOutput(
  store: Store,
  toolCall: ToolCall,
  output: unknown,
): Promise<OutputCheck> {
  if (toolCall.task_id === null) return { checked: false, reason: "no-run" };
  const grant = await loadGrant(runtimeDb(store), toolCall.task_id);
  if (!grant || grant.app === null) return { checked: false, reason: "no-app" };
  const { runtime } = await loadGovernedApp(grant.app, store);
  if (!runtime.tools.has(toolCall.tool_name)) return { checked: false, reason: "no-tool" };
  assertSettledOutput(runtime.tools.get(toolCall.tool_name), toolCall, output);
  return { checked: true };
}
