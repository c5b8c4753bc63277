// zod 3, as LangGraph.js's: code extends it with zod 3 fields (`.extend({ n: z.number() })`).
import { z } from "zod/v3";
import { MessagesZodMeta, withLangGraph } from "./meta.js";

/**
 * A zod state with a `messages` key that appends with the messages reducer (LangGraph.js's
 * `MessagesZodState`); extend it with your own keys.
 *
 * @example
 * const State = MessagesZodState.extend({ turns: z.number() });
 */
export const MessagesZodState = z.object({
  messages: withLangGraph(z.custom<unknown[]>(), MessagesZodMeta),
});
