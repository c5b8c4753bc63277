import type { BaseMessage } from "@langchain/core/messages";
import { END } from "../../graph/index.js";

/**
 * Routes to `"tools"` when the last message asks for tool calls, else to `END`. Same name and
 * behaviour as LangGraph.js's.
 *
 * @example
 * builder.addConditionalEdges("agent", toolsCondition, ["tools", END]);
 */
export function toolsCondition(
  state: BaseMessage[] | { messages: BaseMessage[] },
): "tools" | typeof END {
  const messages = Array.isArray(state) ? state : state.messages;
  const last = messages[messages.length - 1] as { tool_calls?: unknown[] } | undefined;
  return last !== undefined && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
}
