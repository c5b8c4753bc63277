export { Approval, ApprovalDecision, type ApprovalInput, ApprovalRefs } from "./approval.js";
export { AuditEvent, type AuditEventInput, AuditRefs } from "./audit-event.js";
export {
  CONTRACT_NAMES,
  CONTRACTS,
  type ContractName,
  type ContractOf,
  contractJsonSchema,
  type JsonSchemaOptions,
  validateContract,
} from "./catalog.js";
export {
  ActorType,
  ApprovalStatus,
  AuditOutcome,
  AutonomyLevel,
  type Channel,
  ChannelEnum,
  ExecutionMode,
  GateType,
  higherRisk,
  PipelineStage,
  ResultStatus,
  RetryStrategy,
  RiskLevel,
  Sensitivity,
  StepStatus,
  TaskStatus,
  ToolCallStatus,
} from "./enums.js";
export {
  EventActor,
  EventContent,
  EventContext,
  EventCorrelation,
  EventSecurity,
  EventSource,
  MESSAGE_EVENT_SCHEMA_VERSION,
  MessageEvent,
  type MessageEventInput,
} from "./message-event.js";
export { ErrorDetail, Sha256, Timestamp, Uuid } from "./primitives.js";
export {
  GateSpec,
  RoutingDecision,
  type RoutingDecisionInput,
  RoutingMatch,
} from "./routing-decision.js";
export { RetryPolicy, Step, type StepInput, Task, type TaskInput } from "./task.js";
export { ToolCall, type ToolCallInput, ToolResult, type ToolResultInput } from "./tool-call.js";
