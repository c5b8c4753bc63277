import type { IrNode, NodeFactory } from "../../ir/index.js";
import { type LlmNodeKindOptions, parseLlmConfig } from "./llm-config.js";

export type { ChatModelFactory, LlmNodeKindOptions } from "./llm-config.js";

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
