import type { BaseMessage } from "@langchain/core/messages";
import { DeltaValue } from "../schema/delta-value.js";
import { ReducedValue } from "../schema/reduced-value.js";
import { anyValueSchema } from "../schema/standard-schema.js";
import { type Messages, messagesDeltaReducer, messagesStateReducer } from "./messages-reducer.js";

const MESSAGES_EXTRA = { langgraph_type: "messages", description: "A list of chat messages" };

/**
 * A `StateSchema` key of chat messages under `messagesStateReducer` (LangGraph.js's
 * `MessagesValue`): starts empty, appends, replaces by id, removes with `RemoveMessage`.
 *
 * @example
 * const State = new StateSchema({ messages: MessagesValue, topic: z.string() });
 */
export const MessagesValue = new ReducedValue<BaseMessage[], Messages>(
  anyValueSchema<BaseMessage[]>(() => []),
  {
    reducer: messagesStateReducer,
    inputSchema: anyValueSchema<Messages>(),
    jsonSchemaExtra: MESSAGES_EXTRA,
  },
);

/**
 * `MessagesValue` kept in a `DeltaChannel`: checkpoints save each step's new messages rather
 * than the whole list (LangGraph.js's `MessagesDeltaValue`).
 *
 * @example
 * const State = new StateSchema({ messages: MessagesDeltaValue });
 */
export const MessagesDeltaValue = new DeltaValue<BaseMessage[], Messages>(
  anyValueSchema<BaseMessage[]>(() => []),
  {
    reducer: messagesDeltaReducer,
    inputSchema: anyValueSchema<Messages>(),
    jsonSchemaExtra: MESSAGES_EXTRA,
  },
);
