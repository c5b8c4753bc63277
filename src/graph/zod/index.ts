/**
 * `keel/zod`: zod objects as graph state, as `@langchain/langgraph/zod` offers them.
 *
 * @example
 * import { z } from "zod";
 * import { registry } from "keel/zod";
 * const State = z.object({
 *   topic: z.string(),
 *   log: z.array(z.string()).register(registry, { reducer: { fn: (a, b) => a.concat(b) }, default: () => [] }),
 * });
 * const graph = new StateGraph(State).addNode(…).compile();
 */

import "./plugin.js";

export { MessagesZodState } from "./messages.js";
export { MessagesZodMeta, registry, type SchemaMeta, withLangGraph } from "./meta.js";
export { type LangGraphZodMethods, langgraphMethods } from "./plugin.js";
export {
  getConfigTypeSchema,
  getInputTypeSchema,
  getOutputTypeSchema,
  getStateTypeSchema,
  getUpdateTypeSchema,
} from "./schema.js";
