import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { IrNode, NodeFactory } from "../../ir/index.js";
import { parseLlmConfig } from "./llm-config.js";

/** How an `llm` node gets its chat model (tests and applications may give their own). */
export type ChatModelFactory = (options: {
  baseURL: string;
  model: string;
  apiKey: string;
  temperature?: number;
  timeoutMs: number;
}) => BaseChatModel | Promise<BaseChatModel>;

export interface LlmNodeKindOptions {
  /** Where `base_url_env` and `api_key_env` are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Default: `@langchain/openai`'s ChatOpenAI, its own retries off (the node retries). */
  chatModel?: ChatModelFactory;
}

/**
 * The IR node kind `llm`: a model on an OpenAI-compatible endpoint (through `@langchain/openai`)
 * that may call the document's tools — each call a `tool_call` through the run's gates, approvals
 * and ledger (`context.call`), keyed by its position (`r<round>.<index>`), errors answered to the
 * model as tool messages — and whose final answer goes into named state slots (text, or
 * structured output against a JSON Schema per slot). The config is checked when the document is
 * compiled; LangChain is loaded when such a node first runs. `keel run` registers it; in code,
 * pass it to `registerNodeKinds` or `compileDocument({ nodeKinds })`.
 *
 * @example
 * registerNodeKinds({ llm: llmNodeKind() });
 * // { "id": "assistant", "kind": "llm", "config": { "model": "qwen2.5", "input": "question",
 * //   "tools": ["payments.pay"], "output": "answer", "api_key_env": "OPENAI_API_KEY" } }
 */
export function llmNodeKind(options: LlmNodeKindOptions = {}): NodeFactory {
  return (node) => {
    const config = parseLlmConfig(node.id, node.config);
    let runner: Promise<IrNode> | undefined;
    return async (state, context) => {
      runner ??= import("./llm-node.js").then((m) => m.llmNodeRunner(node, config, options));
      return (await runner)(state, context);
    };
  };
}
