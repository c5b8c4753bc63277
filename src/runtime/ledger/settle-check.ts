import { KeelError } from "../../core/index.js";
import type { ToolCall } from "../contracts/tool-call.js";

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
