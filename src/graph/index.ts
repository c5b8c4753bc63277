/**
 * The state-graph engine: LangGraph.js's API (`Annotation`, `StateGraph`, `Send`, `Command`,
 * `interrupt`, …) on a bulk-synchronous super-step loop. See docs/graph.md.
 */
export {
  Annotation,
  AnnotationRoot,
  type DefaultOptions,
  type NodeFunction,
  type ReducerOptions,
  type StateChannel,
  type StateDefinition,
  type StateType,
  type UpdateType,
} from "./annotation.js";
export type {
  AddNodeOptions,
  ErrorHandler,
  NodeAction,
  PathFunction,
  PathMap,
  SubgraphLike,
} from "./builder/declarations.js";
export { CompiledGraph, Graph, type GraphNodeFunction } from "./builder/graph.js";
export type { RunnableLike } from "./builder/runnable-node.js";
export {
  type CompileOptions,
  type ConditionalEdgesOptions,
  type GraphNode,
  StateGraph,
  type StateGraphInit,
  type StateGraphOptions,
} from "./builder/state-graph.js";
export type { BinaryOperator } from "./channels/index.js";
export {
  AnyValue,
  BaseChannel,
  BinaryOperatorAggregate,
  channelsFromCheckpoint,
  createCheckpoint,
  DeltaChannel,
  type DeltaChannelOptions,
  type DeltaReducer,
  DeltaSnapshot,
  type DeltaWrite,
  deltaChannelsToSnapshot,
  deltaMaxSuperstepsSinceSnapshot,
  EphemeralValue,
  exitDeltaTaskId,
  isDeltaSnapshot,
  LastValue,
  Topic,
  type TopicOptions,
  UntrackedValueChannel,
  type UntrackedValueOptions,
} from "./channels/public/index.js";
export { Command, type CommandOptions, isCommand } from "./command.js";
export { CompiledStateGraph } from "./compiled-graph.js";
export { END, INTERRUPT, START, TASKS } from "./constants.js";
export {
  EmptyChannelError,
  GraphDrained,
  GraphInterrupt,
  GraphRecursionError,
  GraphValueError,
  type Interrupt,
  InvalidUpdateError,
  isGraphInterrupt,
  isInterrupted,
  NodeError,
  NodeInterrupt,
} from "./errors.js";
export {
  EntrypointGraph,
  type EntrypointOptions,
  entrypoint,
  getPreviousState,
  PREVIOUS,
  type TaskOptions,
  task,
} from "./func/index.js";
export { interrupt } from "./interrupt.js";
export {
  type Messages,
  MessagesAnnotation,
  MessagesDeltaValue,
  MessagesValue,
  messagesDeltaReducer,
  messagesStateReducer,
  REMOVE_ALL_MESSAGES,
} from "./messages/index.js";
export { OVERWRITE, Overwrite } from "./overwrite.js";
export {
  isNodeTimeoutError,
  type NodeTimeout,
  NodeTimeoutError,
  type TimeoutPolicy,
} from "./pregel/timeout.js";
export {
  Channel,
  ChannelWrite,
  type ChannelWriteEntry,
  Pregel,
  PregelNode,
  type PregelOptions,
  type PregelRunConfig,
  type PregelStep,
} from "./pregel-api/index.js";
export { RunControl } from "./run-control.js";
export { DeltaValue, type DeltaValueInit } from "./schema/delta-value.js";
export { ReducedValue, type ReducedValueInit } from "./schema/reduced-value.js";
export { type JsonSchema, StateSchema, type StateSchemaField } from "./schema/state-schema.js";
export { isSend, Send } from "./send.js";
export {
  GraphRunStream,
  type InterruptPayload,
  type ProtocolEvent,
  StreamChannel,
  type StreamEventsOptions,
  type StreamTransformer,
  SubgraphRunStream,
} from "./stream-events/index.js";
export { getCurrentTaskInput } from "./task-input.js";
export type {
  CachePolicy,
  ExecutionInfo,
  RetryPolicy,
  RunConfig,
  ServerInfo,
  StateSnapshot,
  StateTask,
  StreamMode,
} from "./types.js";
export { MessagesZodState } from "./zod/messages.js";
