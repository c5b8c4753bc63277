/** The IR's `llm` node kind (no LangChain loaded until such a node runs). */
export { LlmNodeConfig } from "./llm-config.js";
export { type ChatModelFactory, type LlmNodeKindOptions, llmNodeKind } from "./llm-kind.js";
