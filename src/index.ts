/**
 * Keel's public API. The graph engine is exported here under LangGraph.js's names so that code
 * written for `@langchain/langgraph` runs by changing the import; the other layers have subpath
 * exports (`keel/core`, `keel/store`, `keel/rules`, …).
 */

export {
  BaseCheckpointSaver,
  BaseStore,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  InMemoryStore,
  type Item,
  MemorySaver,
} from "./checkpoint/base/index.js";
export { type ErrorCode, isKeelError, KeelError } from "./core/index.js";
export {
  Annotation,
  AnnotationRoot,
  type BinaryOperator,
  BinaryOperatorAggregate,
  Command,
  type CommandOptions,
  CompiledStateGraph,
  type CompileOptions,
  END,
  GraphInterrupt,
  GraphRecursionError,
  GraphValueError,
  INTERRUPT,
  type Interrupt,
  InvalidUpdateError,
  interrupt,
  isCommand,
  isGraphInterrupt,
  isInterrupted,
  isSend,
  LastValue,
  type Messages,
  MessagesAnnotation,
  messagesStateReducer,
  REMOVE_ALL_MESSAGES,
  ReducedValue,
  type RetryPolicy,
  type RunConfig,
  Send,
  START,
  type StateDefinition,
  StateGraph,
  StateSchema,
  type StateSnapshot,
  type StateType,
  type StreamMode,
  type UpdateType,
} from "./graph/index.js";
