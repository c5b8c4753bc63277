import { KeelError } from "../../core/index.js";
import type { ToolCall } from "../contracts/tool-call.js";
import type { RegisteredTool } from "../tools/tool-registry.js";

/**
 * Only a call in doubt (`unknown`) is settled by an operator: an `attempted` one may still be in
 * flight, and a recorded outcome stands. `ILLEGAL_TRANSITION` otherwise, saying what to do.
 *
 * @example
 * assertSettleable((await ledger.get(id)).toolCall, "succeeded");
 */
export function assertSettleable(toolCall: ToolCall, outcome: "succeeded" | "failed"): void {
  if (toolCall.status === "unknown") return;
  throw new KeelError(
    "ILLEGAL_TRANSITION",
    `Tool call ${toolCall.tool_call_id} is ${toolCall.status}, not unknown; only a call in doubt is settled by an operator.`,
    {
      details: { toolCallId: toolCall.tool_call_id, from: toolCall.status, to: outcome },
      hint:
        toolCall.status === "attempted"
          ? "It is in flight, or its process stopped: recovering its run (GovernedRuntime.recover) marks it unknown once its lease lapsed."
          : "Its outcome is already recorded; `keel ledger show <id>` shows it.",
    },
  );
}

/**
 * The output an operator says a call in doubt produced must be what the tool would have
 * returned: `TOOL_OUTPUT_INVALID` with every problem otherwise, and nothing is recorded.
 *
 * @example
 * assertSettledOutput(tools.get(toolCall.tool_name), toolCall, { receipt: "rc-1" });
 */
export function assertSettledOutput(
  tool: RegisteredTool,
  toolCall: ToolCall,
  output: unknown,
): void {
  const problems = tool.validateOutput(output);
  if (problems.length === 0) return;
  throw new KeelError(
    "TOOL_OUTPUT_INVALID",
    `The output given for tool call ${toolCall.tool_call_id} fails the output schema of "${toolCall.tool_name}" (${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}).`,
    {
      details: { toolCallId: toolCall.tool_call_id, tool: toolCall.tool_name, problems },
      hint: "Give the JSON the effect produced, as the tool would have returned it; nothing was recorded.",
    },
  );
}
