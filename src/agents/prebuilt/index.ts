export {
  type AgentExecutorState,
  type CreateAgentExecutorParams,
  createAgentExecutor,
} from "./agent-executor.js";
export {
  type AgentHook,
  type AgentPrompt,
  type AgentState,
  type CreateReactAgentParams,
  createReactAgent,
  createReactAgentAnnotation,
  type DynamicModel,
  type MessageModifier,
  type ResponseFormat,
} from "./react-agent.js";
export {
  pendingToolCalls,
  type ToolLike,
  ToolNode,
  type ToolNodeInput,
  type ToolNodeOptions,
} from "./tool-node.js";
export { toolsCondition } from "./tools-condition.js";
