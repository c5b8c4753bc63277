/**
 * Agents (`keel/prebuilt`): LangGraph.js's prebuilt agent and tool node under their names, and
 * Keel's governed tool node. Loads `@langchain/core` (a peer dependency of this subpath only).
 * See docs/agents.md.
 */

export {
  GovernedToolNode,
  type GovernedToolNodeOptions,
  governedToolNode,
  type ToolDefinition,
} from "./governed/governed-tool-node.js";
export {
  type ChatModelFactory,
  LlmNodeConfig,
  type LlmNodeKindOptions,
  llmNodeKind,
} from "./ir/index.js";
export * from "./prebuilt/index.js";
