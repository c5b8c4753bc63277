import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  type AIMessage,
  type BaseMessage,
  isAIMessage,
  isBaseMessage,
  isToolMessage,
  SystemMessage,
} from "@langchain/core/messages";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import type { InteropZodType } from "@langchain/core/utils/types";
import type { BaseCheckpointSaver } from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import {
  Annotation,
  type AnnotationRoot,
  type CompiledStateGraph,
  END,
  type Messages,
  messagesStateReducer,
  type RunConfig,
  Send,
  START,
  type StateDefinition,
  StateGraph,
} from "../../graph/index.js";
import { type ToolLike, ToolNode } from "./tool-node.js";

/** The state of `createReactAgent`'s graph: the conversation and the structured answer. */
export const createReactAgentAnnotation = () =>
  Annotation.Root({
    messages: Annotation<BaseMessage[], Messages>({
      reducer: messagesStateReducer,
      default: () => [],
    }),
    structuredResponse: Annotation<Record<string, unknown>>(),
  });

/** What the model sees first: a system prompt, a function of the state, or a Runnable. */
export type AgentPrompt =
  | string
  | SystemMessage
  | ((state: AgentState, config: RunConfig) => BaseMessage[] | Promise<BaseMessage[]>)
  | Runnable<AgentState, BaseLanguageModelInput>;

/** The state every agent graph has (its schema may add keys). */
export interface AgentState {
  messages: BaseMessage[];
  structuredResponse?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A schema (zod, JSON Schema) for `withStructuredOutput`, optionally with its own prompt. */
export type ResponseFormat =
  | InteropZodType
  | Record<string, unknown>
  | {
      schema: InteropZodType | Record<string, unknown>;
      prompt?: string;
      [option: string]: unknown;
    };

/** Parameters of `createReactAgent`, named as LangGraph.js's. */
export interface CreateReactAgentParams<S extends StateDefinition = StateDefinition> {
  /** A chat model (tools are bound with `bindTools`), or one with tools already bound. */
  llm: BaseChatModel | Runnable<BaseLanguageModelInput, BaseMessage>;
  /** The tools, or a ready `ToolNode` (e.g. a governed one). */
  tools: ToolLike[] | ToolNode | (Runnable & { tools?: ReadonlyArray<ToolLike | object> });
  prompt?: AgentPrompt;
  /** A state schema with a `messages` key (default: messages + structuredResponse). */
  stateSchema?: AnnotationRoot<S>;
  checkpointer?: BaseCheckpointSaver;
  /** LangGraph.js's older name of `checkpointer`. */
  checkpointSaver?: BaseCheckpointSaver;
  interruptBefore?: Array<"agent" | "tools"> | "*";
  interruptAfter?: Array<"agent" | "tools"> | "*";
  /** A long-term store handed to nodes and tools as `config.store`. */
  store?: unknown;
  /** Ask the model for a structured answer at the end (`state.structuredResponse`). */
  responseFormat?: ResponseFormat;
  /** The agent's name: set on its AI messages and the compiled graph. */
  name?: string;
  /** `v1`: one tools step for all calls; `v2`: one `Send` per call. */
  version?: "v1" | "v2";
}

type ModelRunnable = Runnable<BaseLanguageModelInput, BaseMessage>;

function hasBindTools(llm: unknown): llm is { bindTools(tools: unknown[]): ModelRunnable } {
  return typeof (llm as { bindTools?: unknown }).bindTools === "function";
}

/** True when `llm` already carries bound tools (`model.bindTools(tools)` done by the caller). */
function toolsBound(llm: unknown): boolean {
  const kwargs = (llm as { kwargs?: { tools?: unknown } }).kwargs;
  const config = (llm as { config?: { tools?: unknown } }).config;
  return Array.isArray(kwargs?.tools) || Array.isArray(config?.tools);
}

/** The chat model itself, below any binding (for `withStructuredOutput`). */
function baseModel(llm: unknown): BaseChatModel {
  const bound = (llm as { bound?: unknown }).bound;
  const model = bound !== undefined && Runnable.isRunnable(bound) ? bound : llm;
  if (typeof (model as { withStructuredOutput?: unknown }).withStructuredOutput !== "function") {
    throw new Error(
      "responseFormat needs a chat model with withStructuredOutput(); pass the model itself as llm.",
    );
  }
  return model as BaseChatModel;
}

/** `{ schema, prompt? }` rather than a schema itself (a zod schema has no `schema` key). */
function isSchemaWithPrompt(
  format: ResponseFormat,
): format is { schema: Record<string, unknown>; prompt?: string } {
  return (
    typeof format === "object" &&
    "schema" in format &&
    typeof (format as { schema?: unknown }).schema === "object" &&
    typeof (format as { parse?: unknown }).parse !== "function"
  );
}

function promptMessages(
  prompt: AgentPrompt | undefined,
): (
  state: AgentState,
  config: RunConfig,
) => BaseLanguageModelInput | Promise<BaseLanguageModelInput> {
  if (prompt === undefined) return (state) => state.messages;
  if (typeof prompt === "string") {
    const system = new SystemMessage(prompt);
    return (state) => [system, ...state.messages];
  }
  if (isBaseMessage(prompt)) return (state) => [prompt, ...state.messages];
  if (typeof prompt === "function") return prompt;
  if (Runnable.isRunnable(prompt))
    return (state, config) => prompt.invoke(state, config as RunnableConfig);
  throw new Error(`Got unexpected type for 'prompt': ${typeof prompt}`);
}

/**
 * A tool-calling agent: the model answers or asks for tools, the tools run (in parallel), their
 * answers go back to the model, until it answers without tool calls. Same name, parameters and
 * graph (`agent` and `tools` nodes, `generate_structured_response` with a `responseFormat`) as
 * LangGraph.js's `createReactAgent`, on Keel's engine and savers.
 *
 * @example
 * const agent = createReactAgent({ llm: new ChatOpenAI({ model: "gpt-4o-mini" }), tools: [search],
 *   prompt: "You are concise.", checkpointer: SqliteSaver.fromStore(store) });
 * const { messages } = await agent.invoke({ messages: [new HumanMessage("weather in Oslo?")] },
 *   { configurable: { thread_id: "t1" } });
 */
export function createReactAgent<S extends StateDefinition = StateDefinition>(
  params: CreateReactAgentParams<S>,
): CompiledStateGraph<AgentState, Partial<AgentState> | { messages: Messages }> {
  const { llm, prompt, responseFormat, name, store, version = "v1" } = params;
  const toolNode: Runnable =
    params.tools instanceof Runnable ? params.tools : new ToolNode(params.tools as ToolLike[]);
  // A tool node's tools: LangChain tools, or definitions a model binds (a governed node's).
  const toolList = (
    Array.isArray(params.tools)
      ? params.tools
      : ((params.tools as { tools?: unknown[] }).tools ?? [])
  ) as ToolLike[];
  const model: ModelRunnable =
    toolList.length > 0 && !toolsBound(llm) && hasBindTools(llm)
      ? llm.bindTools(toolList)
      : (llm as ModelRunnable);
  const input = promptMessages(prompt);
  const returnDirect = new Set(
    toolList.filter((t) => (t as { returnDirect?: boolean }).returnDirect).map((t) => t.name),
  );
  const withStore = (config: RunConfig): RunnableConfig =>
    (store === undefined ? config : { ...config, store }) as RunnableConfig;

  const callModel = async (state: AgentState, config: RunConfig) => {
    const response = (await model.invoke(
      await input(state, config),
      withStore(config),
    )) as AIMessage;
    if (name !== undefined) {
      response.name = name;
      response.lc_kwargs.name = name;
    }
    return { messages: [response] };
  };
  // A governed tool node also answers malformed calls (LangGraph's ToolNode leaves them).
  const answersInvalid =
    (toolNode as { answersInvalidToolCalls?: boolean }).answersInvalidToolCalls === true;
  const afterModel = (state: AgentState) => {
    const last = state.messages[state.messages.length - 1];
    const calls =
      last !== undefined && isAIMessage(last)
        ? (last.tool_calls?.length ?? 0) +
          (answersInvalid ? (last.invalid_tool_calls?.length ?? 0) : 0)
        : 0;
    if (last === undefined || !isAIMessage(last) || calls === 0)
      return responseFormat !== undefined ? "generate_structured_response" : END;
    if (version === "v2" && !answersInvalid && last.tool_calls)
      return last.tool_calls.map((call) => new Send("tools", { ...state, lg_tool_call: call }));
    return "tools";
  };

  const schema = (params.stateSchema ??
    createReactAgentAnnotation()) as unknown as AnnotationRoot<StateDefinition>;
  if (!Object.hasOwn(schema.spec, "messages"))
    throw new KeelError("INVALID_ARGUMENT", "The agent's state schema has no `messages` key.", {
      hint: "Extend MessagesAnnotation: Annotation.Root({ ...MessagesAnnotation.spec, … }).",
    });
  const builder = new StateGraph(schema);
  builder
    .addNode("tools", ((state: unknown, config: RunConfig) =>
      toolNode.invoke(state, withStore(config))) as never)
    .addNode("agent", callModel as never)
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      afterModel as never,
      responseFormat !== undefined ? ["tools", "generate_structured_response"] : ["tools", END],
    );
  if (responseFormat !== undefined) {
    builder
      .addNode("generate_structured_response", (async (state: AgentState, config: RunConfig) => {
        const messages = [...state.messages];
        const base = baseModel(llm);
        let structured: Runnable;
        if (isSchemaWithPrompt(responseFormat)) {
          const { prompt: formatPrompt, schema, ...options } = responseFormat;
          structured = base.withStructuredOutput(schema as Record<string, unknown>, options);
          if (typeof formatPrompt === "string") messages.unshift(new SystemMessage(formatPrompt));
        } else {
          structured = base.withStructuredOutput(responseFormat as Record<string, unknown>);
        }
        const response = (await structured.invoke(messages, withStore(config))) as unknown;
        if (response === null || response === undefined)
          throw new Error(
            "The structured-output parser returned nothing: the model's answer did not satisfy the responseFormat schema.",
          );
        return { structuredResponse: response as Record<string, unknown> };
      }) as never)
      .addEdge("generate_structured_response", END);
  }
  if (returnDirect.size > 0) {
    builder.addConditionalEdges(
      "tools",
      ((state: AgentState) => {
        for (let i = state.messages.length - 1; i >= 0; i -= 1) {
          const message = state.messages[i]!;
          if (!isToolMessage(message)) break;
          if (message.name !== undefined && returnDirect.has(message.name)) return END;
        }
        return "agent";
      }) as never,
      ["agent", END],
    );
  } else {
    builder.addEdge("tools", "agent");
  }
  return builder.compile({
    checkpointer: params.checkpointer ?? params.checkpointSaver,
    interruptBefore: params.interruptBefore,
    interruptAfter: params.interruptAfter,
    name,
  }) as unknown as CompiledStateGraph<AgentState, Partial<AgentState> | { messages: Messages }>;
}
