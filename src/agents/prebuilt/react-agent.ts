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
import type { ToolCall } from "@langchain/core/messages/tool";
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
import { schemaUsesReducer } from "../../graph/messages/index.js";
import { modelEndpointError } from "./model-errors.js";
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

/** The channel a pre-model hook sets for one model call (replaced, never accumulated). */
const PreHookAnnotation = Annotation.Root({
  llmInputMessages: Annotation<BaseMessage[], Messages>({
    reducer: (_current, update) => messagesStateReducer([], update),
    default: () => [],
  }),
});

/** A hook as a node: a Runnable gets the run's config like any Runnable node. */
function hookNode(hook: AgentHook): (state: AgentState, config: RunConfig) => unknown {
  if (Runnable.isRunnable(hook))
    return (state, config) => hook.invoke(state, config as RunnableConfig);
  return hook;
}

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

/**
 * A model chosen at each call from the state and the run's config (a dynamic model). It is used
 * as returned: bind its tools yourself (`model.bindTools(tools)`). With a `responseFormat` it is
 * also asked for the chat model that gives the structured answer (return the model itself, not
 * a binding, there).
 */
export type DynamicModel = (
  state: AgentState,
  config: RunConfig,
) =>
  | BaseChatModel
  | Runnable<BaseLanguageModelInput, BaseMessage>
  | Promise<BaseChatModel | Runnable<BaseLanguageModelInput, BaseMessage>>;

/** LangGraph.js's older `messageModifier`: like `prompt`, but a function gets the messages alone. */
export type MessageModifier =
  | string
  | SystemMessage
  | ((messages: BaseMessage[]) => BaseMessage[] | Promise<BaseMessage[]>)
  | Runnable<BaseMessage[], BaseLanguageModelInput>;

/** Parameters of `createReactAgent`, named as LangGraph.js's. */
export interface CreateReactAgentParams<S extends StateDefinition = StateDefinition> {
  /**
   * A chat model (tools are bound with `bindTools`), one with tools already bound, or a function
   * choosing the model at each call (see `DynamicModel`).
   */
  llm: BaseChatModel | Runnable<BaseLanguageModelInput, BaseMessage> | DynamicModel;
  /** The tools, or a ready `ToolNode` (e.g. a governed one). */
  tools: ToolLike[] | ToolNode | (Runnable & { tools?: ReadonlyArray<ToolLike | object> });
  prompt?: AgentPrompt;
  /** @deprecated LangGraph.js's older name of `prompt` (give one of the three). */
  stateModifier?: AgentPrompt;
  /** @deprecated LangGraph.js's older `prompt`, whose functions get `state.messages` (see `MessageModifier`). */
  messageModifier?: MessageModifier;
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
  /**
   * A node run before every model call (`pre_model_hook`): it may update the state, or return
   * `llmInputMessages` — what the model sees this time instead of `messages` (not kept).
   */
  preModelHook?: AgentHook;
  /** A node run after every model call (`post_model_hook`), before the tools are routed to. */
  postModelHook?: AgentHook;
}

/** A pre- or post-model hook: a node function or a Runnable (a graph, a RunnableLambda). */
export type AgentHook =
  | ((state: AgentState, config: RunConfig) => unknown)
  | Runnable<AgentState, unknown>;

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

/** The one of `prompt`, `stateModifier`, `messageModifier` given, as a prompt (LangGraph.js's rule). */
function chosenPrompt(params: CreateReactAgentParams<StateDefinition>): AgentPrompt | undefined {
  const { prompt, stateModifier, messageModifier } = params;
  if ([prompt, stateModifier, messageModifier].filter((p) => p != null).length > 1)
    throw new KeelError(
      "INVALID_ARGUMENT",
      "createReactAgent got more than one of prompt, stateModifier and messageModifier.",
      { hint: "Give only `prompt` (the other two are its older names)." },
    );
  if (stateModifier != null) return stateModifier;
  if (messageModifier == null) return prompt;
  if (typeof messageModifier === "string" || isBaseMessage(messageModifier)) return messageModifier;
  if (typeof messageModifier === "function")
    return (state: AgentState) => messageModifier(state.messages);
  if (Runnable.isRunnable(messageModifier))
    return (state: AgentState, config: RunConfig) =>
      messageModifier.invoke(state.messages, config as RunnableConfig) as Promise<BaseMessage[]>;
  throw new KeelError(
    "INVALID_ARGUMENT",
    `Got unexpected type for 'messageModifier': ${typeof messageModifier}`,
    { hint: "Pass a string, a SystemMessage, a function of the messages or a Runnable." },
  );
}

/** True for a function choosing the model (a model or a Runnable is an object). */
function isDynamicModel(llm: CreateReactAgentParams["llm"]): llm is DynamicModel {
  return typeof llm === "function";
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
  const { llm, responseFormat, name, store, version = "v1" } = params;
  const prompt = chosenPrompt(params as CreateReactAgentParams<StateDefinition>);
  const toolNode: Runnable =
    params.tools instanceof Runnable ? params.tools : new ToolNode(params.tools as ToolLike[]);
  // A tool node's tools: LangChain tools, or definitions a model binds (a governed node's).
  const toolList = (
    Array.isArray(params.tools)
      ? params.tools
      : ((params.tools as { tools?: unknown[] }).tools ?? [])
  ) as ToolLike[];
  // A dynamic model is used as its function returns it (LangGraph.js binds no tools to it).
  const staticModel: ModelRunnable | undefined = isDynamicModel(llm)
    ? undefined
    : toolList.length > 0 && !toolsBound(llm) && hasBindTools(llm)
      ? llm.bindTools(toolList)
      : (llm as ModelRunnable);
  const modelFor = async (state: AgentState, config: RunConfig): Promise<ModelRunnable> =>
    staticModel ?? ((await (llm as DynamicModel)(state, config)) as ModelRunnable);
  const input = promptMessages(prompt);
  const returnDirect = new Set(
    toolList.filter((t) => (t as { returnDirect?: boolean }).returnDirect).map((t) => t.name),
  );
  const withStore = (config: RunConfig): RunnableConfig =>
    (store === undefined ? config : { ...config, store }) as RunnableConfig;

  const schema = (params.stateSchema ??
    createReactAgentAnnotation()) as unknown as AnnotationRoot<StateDefinition>;
  if (!Object.hasOwn(schema.spec, "messages"))
    throw new KeelError("INVALID_ARGUMENT", "The agent's state schema has no `messages` key.", {
      hint: "Extend MessagesAnnotation: Annotation.Root({ ...MessagesAnnotation.spec, … }).",
    });
  // The model node writes the message the reducer stores (a streamed chunk becomes its
  // whole-message class, as `messagesStateReducer` makes it): the saved write and the list's new
  // item are then one object, serialised once, and a saver stores the write as the list's append.
  const messagesSpec = schema.spec.messages;
  const writesStored =
    messagesSpec !== undefined &&
    schemaUsesReducer({ messages: messagesSpec }, messagesStateReducer);
  const callModel = async (state: AgentState, config: RunConfig) => {
    // What a pre-model hook gave for this call only replaces the conversation the model sees.
    const llmInput = state.llmInputMessages as BaseMessage[] | undefined;
    const seen =
      llmInput !== undefined && llmInput.length > 0 ? { ...state, messages: llmInput } : state;
    // A static model and a prompt that is not a promise are not awaited (a microtask turn and a
    // promise each, at every model call).
    const model = staticModel ?? (await modelFor(state, config));
    let response: AIMessage;
    try {
      const prompted = input(seen, config);
      const messages =
        prompted != null && typeof (prompted as { then?: unknown }).then === "function"
          ? await prompted
          : (prompted as BaseLanguageModelInput);
      response = (await model.invoke(messages, withStore(config))) as AIMessage;
    } catch (error) {
      throw modelEndpointError(error, model);
    }
    if (name !== undefined) {
      response.name = name;
      response.lc_kwargs.name = name;
    }
    return { messages: writesStored ? messagesStateReducer([], [response]) : [response] };
  };
  // A governed tool node also answers malformed calls (LangGraph's ToolNode leaves them).
  const answersInvalid =
    (toolNode as { answersInvalidToolCalls?: boolean }).answersInvalidToolCalls === true;
  const entrypoint = params.preModelHook !== undefined ? "pre_model_hook" : "agent";
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
  // After a post-model hook (as LangGraph.js): the last AI message's unanswered calls go to the
  // tools; a hook that answered them itself (a tool message last) sends the run back to the model.
  const afterPostHook = (state: AgentState) => {
    const { messages } = state;
    const answered = new Set(messages.filter(isToolMessage).map((m) => m.tool_call_id));
    let ai: AIMessage | undefined;
    for (let i = messages.length - 1; i >= 0 && !ai; i -= 1) {
      const message = messages[i]!;
      if (isAIMessage(message)) ai = message;
    }
    const open = (id: string | undefined) => id === undefined || !answered.has(id);
    const pending = [
      ...(ai?.tool_calls ?? []).filter((c) => open(c.id)),
      ...(answersInvalid ? (ai?.invalid_tool_calls ?? []).filter((c) => open(c.id)) : []),
    ];
    if (pending.length > 0) {
      if (version === "v2" && !answersInvalid)
        return (pending as ToolCall[]).map(
          (call) => new Send("tools", { ...state, lg_tool_call: call }),
        );
      return "tools";
    }
    const last = messages[messages.length - 1];
    if (last !== undefined && isToolMessage(last)) return entrypoint;
    return responseFormat !== undefined ? "generate_structured_response" : END;
  };

  // A pre-model hook's `llmInputMessages` is a channel of the graph, not of its output.
  const builder =
    params.preModelHook !== undefined
      ? new StateGraph(
          Annotation.Root({
            ...schema.spec,
            ...PreHookAnnotation.spec,
          }) as unknown as typeof schema,
          { output: schema },
        )
      : new StateGraph(schema);
  const ends = responseFormat !== undefined ? "generate_structured_response" : END;
  builder
    .addNode("tools", ((state: unknown, config: RunConfig) =>
      toolNode.invoke(state, withStore(config))) as never)
    .addNode("agent", callModel as never)
    .addEdge(START, entrypoint);
  if (params.preModelHook !== undefined)
    builder
      .addNode("pre_model_hook", hookNode(params.preModelHook) as never)
      .addEdge("pre_model_hook", "agent");
  if (params.postModelHook !== undefined) {
    builder
      .addNode("post_model_hook", hookNode(params.postModelHook) as never)
      .addEdge("agent", "post_model_hook")
      .addConditionalEdges("post_model_hook", afterPostHook as never, [
        "tools",
        ends,
        ...(entrypoint === "agent" ? ["agent"] : [entrypoint]),
      ]);
  } else {
    builder.addConditionalEdges("agent", afterModel as never, ["tools", ends]);
  }
  if (responseFormat !== undefined) {
    builder
      .addNode("generate_structured_response", (async (state: AgentState, config: RunConfig) => {
        const messages = [...state.messages];
        const base = baseModel(isDynamicModel(llm) ? await llm(state, config) : llm);
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
        return entrypoint;
      }) as never,
      [entrypoint, END],
    );
  } else {
    builder.addEdge("tools", entrypoint);
  }
  return builder.compile({
    checkpointer: params.checkpointer ?? params.checkpointSaver,
    interruptBefore: params.interruptBefore,
    interruptAfter: params.interruptAfter,
    name,
  }) as unknown as CompiledStateGraph<AgentState, Partial<AgentState> | { messages: Messages }>;
}
