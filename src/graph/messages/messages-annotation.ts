import type { BaseMessage } from "@langchain/core/messages";
import { Annotation } from "../annotation.js";
import { type Messages, messagesStateReducer } from "./messages-reducer.js";

/**
 * The state of a chat agent: one `messages` key under `messagesStateReducer`. Same name and
 * behaviour as LangGraph.js's; extend it with `Annotation.Root({ ...MessagesAnnotation.spec, … })`.
 *
 * @example
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
 *   .addEdge(START, "agent")
 *   .compile();
 * await graph.invoke({ messages: [new HumanMessage("hi")] });
 */
export const MessagesAnnotation = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({
    reducer: messagesStateReducer,
    default: () => [],
  }),
});
