export {
  isMessageLike,
  lcMessages,
  preloadLangChain,
  schemaUsesReducer,
} from "./langchain-messages.js";
export { MessagesAnnotation } from "./messages-annotation.js";
export {
  type Messages,
  messagesDeltaReducer,
  messagesStateReducer,
  REMOVE_ALL_MESSAGES,
} from "./messages-reducer.js";
export { MessagesDeltaValue, MessagesValue } from "./messages-value.js";
