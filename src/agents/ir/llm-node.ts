import {
  type AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { isKeelError, KeelError } from "../../core/index.js";
import { isGraphInterrupt } from "../../graph/index.js";
import type { IrNode, NodeContext, NodeSpec, ToolDescriber } from "../../ir/index.js";
import { ANSWERED } from "../governed/governed-tool-node.js";
import { modelEndpointError } from "../prebuilt/model-errors.js";
import {
  apiKeyOf,
  type ChatModelFactory,
  endpointOf,
  type LlmNodeConfig,
  type LlmNodeKindOptions,
} from "./llm-config.js";

const openAIChatModel: ChatModelFactory = async (options) => {
  let openai: typeof import("@langchain/openai");
  try {
    openai = await import("@langchain/openai");
  } catch (error) {
    throw new KeelError(
      "OPTIONAL_DEPENDENCY_MISSING",
      `An llm node needs "@langchain/openai", which could not be loaded: ${(error as Error).message}`,
      { cause: error, hint: "Install it next to Keel: npm install @langchain/openai" },
    );
  }
  const { ChatOpenAI } = openai;
  return new ChatOpenAI({
    model: options.model,
    apiKey: options.apiKey,
    maxRetries: 0,
    timeout: options.timeoutMs,
    configuration: { baseURL: options.baseURL },
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
};

/**
 * Runs one `llm` node (the kind is `llmNodeKind`, which loads this module when a node first
 * runs, so documents without one never load LangChain).
 */
export function llmNodeRunner(
  node: NodeSpec,
  config: LlmNodeConfig,
  options: LlmNodeKindOptions,
): IrNode {
  const env = options.env ?? process.env;
  const makeModel = options.chatModel ?? openAIChatModel;
  return async (state, context) => {
    const baseURL = endpointOf(node.id, config, env);
    const model = await makeModel({
      baseURL,
      model: config.model,
      apiKey: apiKeyOf(node.id, config, env),
      timeoutMs: config.timeout_ms,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    });
    const endpoint = { clientConfig: { baseURL } };
    const tools = bindings(node.id, config, context.describeTool);
    const bound = tools.definitions.length > 0 ? model.bindTools!(tools.definitions) : model;
    const runConfig = context.config as RunnableConfig;
    const ask = (messages: BaseMessage[], runnable = bound) =>
      withRetries(() => runnable.invoke(messages, runConfig), config.max_retries, endpoint);
    const messages: BaseMessage[] = [
      ...(config.system !== undefined ? [new SystemMessage(config.system)] : []),
      new HumanMessage(userText(state, config.input)),
    ];
    for (let round = 0; ; round += 1) {
      const answer = (await ask(messages)) as AIMessage;
      messages.push(answer);
      const calls = [
        ...(answer.tool_calls ?? []).map((call) => ({ call, malformed: false })),
        ...(answer.invalid_tool_calls ?? []).map((call) => ({
          call: { id: call.id, name: call.name ?? "(no name)", args: call.args ?? "" },
          malformed: true,
        })),
      ];
      if (calls.length === 0) break;
      if (round >= config.max_tool_rounds) {
        throw new KeelError(
          "GRAPH_RECURSION_LIMIT",
          `Node "${node.id}": the model still asked for tools after ${config.max_tool_rounds} rounds.`,
          {
            details: { node: node.id, rounds: config.max_tool_rounds },
            hint: "Raise max_tool_rounds in the node's config, or tell the model (system) when to stop.",
          },
        );
      }
      for (const [index, { call, malformed }] of calls.entries())
        messages.push(
          await toolCall(context, tools.byName, {
            key: `r${round}.${index}`,
            id: call.id ?? `r${round}.${index}`,
            name: call.name,
            args: call.args,
            malformed,
          }),
        );
    }
    if (typeof config.output === "string")
      return { [config.output]: textOf(messages[messages.length - 1] as AIMessage) };
    const schema = {
      type: "object",
      properties: config.output,
      required: Object.keys(config.output),
      additionalProperties: false,
    };
    const structured = model.withStructuredOutput(schema, {
      name: "answer",
      method: "jsonSchema",
    });
    const value = (await withRetries(
      () => structured.invoke(messages, runConfig),
      config.max_retries,
      endpoint,
    )) as Record<string, unknown>;
    return Object.fromEntries(Object.keys(config.output).map((slot) => [slot, value[slot]]));
  };
}

/** The tools a node binds: the document's registered tools, by the names the model uses. */
function bindings(nodeId: string, config: LlmNodeConfig, describe: ToolDescriber | undefined) {
  const byName = new Map<string, string>();
  const definitions = config.tools.map((id) => {
    const spec = describe?.(id);
    if (!spec) {
      throw new KeelError(
        "TOOL_NOT_FOUND",
        `Node "${nodeId}" binds the tool "${id}", which the run does not provide (a document tool, registered by a module).`,
        {
          details: { node: nodeId, tool: id },
          hint: `Name it in the document's tools and export it from a module (\`tools\`); run the document with \`keel run\` (a governed run).`,
        },
      );
    }
    byName.set(spec.name, id);
    return {
      type: "function" as const,
      function: { name: spec.name, description: spec.description, parameters: spec.input_schema },
    };
  });
  return { definitions, byName };
}

/** One tool call of the model, through the run's gates and ledger; what the model hears back. */
async function toolCall(
  context: NodeContext,
  byName: ReadonlyMap<string, string>,
  call: { key: string; id: string; name: string; args: unknown; malformed: boolean },
): Promise<ToolMessage> {
  const tool = byName.get(call.name) ?? `unknown.${call.name}`;
  try {
    // Malformed arguments (not JSON) are passed as the text they are: admission refuses them
    // against the tool's schema, audited, and nothing runs.
    const output = await context.call(tool, call.args, { key: call.key });
    return new ToolMessage({
      status: "success",
      name: call.name,
      content: typeof output === "string" ? output : JSON.stringify(output),
      tool_call_id: call.id,
    });
  } catch (error) {
    // An unknown name is the document's refusal (TOOL_FORBIDDEN): the model hears it too.
    if (isGraphInterrupt(error) || !isKeelError(error) || !ANSWERED.has(error.code)) throw error;
    return new ToolMessage({
      status: "error",
      name: call.name,
      content: `Error: ${error.code}: ${error.message}${error.hint ? ` ${error.hint}` : ""}${call.malformed ? " (the arguments were not valid JSON)" : ""}`,
      tool_call_id: call.id,
    });
  }
}

function userText(state: Record<string, unknown>, input: string | string[]): string {
  const slots = typeof input === "string" ? [input] : input;
  const parts = slots.map((slot) => {
    const value = state[slot];
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    return slots.length === 1 ? text : `${slot}: ${text}`;
  });
  return parts.join("\n");
}

function textOf(message: AIMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part ? String(part.text) : "")).join("");
}

/** Retries 429s (after their `retry-after`, up to 60 s) and 5xx answers; names the URL on failure. */
async function withRetries<T>(
  fn: () => Promise<T>,
  retries: number,
  endpoint: unknown,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      const retryable = status === 429 || (typeof status === "number" && status >= 500);
      if (!retryable || attempt >= retries) throw modelEndpointError(error, endpoint);
      await new Promise((resolve) =>
        setTimeout(resolve, retryAfterMs(error) ?? 250 * 2 ** attempt),
      );
    }
  }
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  const value =
    headers && typeof (headers as Headers).get === "function"
      ? (headers as Headers).get("retry-after")
      : ((headers as Record<string, string> | undefined)?.["retry-after"] ?? null);
  if (value === null || value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 60_000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at - Date.now(), 0), 60_000);
}
