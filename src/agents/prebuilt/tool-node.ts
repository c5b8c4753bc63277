import {
  type AIMessage,
  type BaseMessage,
  isAIMessage,
  isBaseMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type Command, isCommand, isGraphInterrupt } from "../../graph/index.js";

/** A tool a `ToolNode` can run: a LangChain tool, or any Runnable with a name. */
export type ToolLike = StructuredToolInterface | (Runnable & { name: string });

/** Options of `new ToolNode(tools, options)`. */
export interface ToolNodeOptions {
  name?: string;
  tags?: string[];
  /**
   * Return a tool's error to the model as a `ToolMessage` (status `error`) instead of failing the
   * run (default true, as LangGraph.js). An `interrupt()` inside a tool always propagates.
   */
  handleToolErrors?: boolean;
}

/** What a `ToolNode` reads: the messages state, a list of messages, or one `Send`'s tool call. */
export type ToolNodeInput =
  | { messages: BaseMessage[] }
  | BaseMessage[]
  | ({ lg_tool_call: ToolCall } & Record<string, unknown>);

function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.every(isBaseMessage);
}

/** The calls of the last AI message that have no `ToolMessage` answer yet. */
export function pendingToolCalls(messages: BaseMessage[]): ToolCall[] {
  let ai: AIMessage | undefined;
  const answered = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (isAIMessage(message)) {
      ai = message;
      break;
    }
  }
  if (!ai) return [];
  for (const message of messages)
    if (message.getType() === "tool") answered.add((message as ToolMessage).tool_call_id);
  return (ai.tool_calls ?? []).filter((call) => call.id === undefined || !answered.has(call.id));
}

/**
 * Runs the tool calls of the last AI message, in parallel, and answers each with a
 * `ToolMessage`: same name and behaviour as LangGraph.js's `ToolNode` (an unknown tool or a
 * throwing tool becomes an error `ToolMessage` the model can read; a tool returning a `Command`
 * passes it on; `{ lg_tool_call }` input, from a `Send`, runs that one call).
 *
 * @example
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("agent", callModel)
 *   .addNode("tools", new ToolNode([search]))
 *   .addConditionalEdges("agent", toolsCondition)
 *   .addEdge("tools", "agent")
 *   .addEdge(START, "agent")
 *   .compile();
 */
export class ToolNode extends Runnable<ToolNodeInput, unknown> {
  lc_namespace = ["keel", "prebuilt"];
  readonly tools: ToolLike[];
  readonly handleToolErrors: boolean;
  private readonly byName: Map<string, ToolLike>;

  constructor(tools: ToolLike[], options: ToolNodeOptions = {}) {
    super();
    this.tools = tools;
    this.name = options.name ?? "tools";
    this.handleToolErrors = options.handleToolErrors ?? true;
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Runs the pending tool calls; returns `{ messages }` (or a list, for a list input). */
  async invoke(input: ToolNodeInput, config?: RunnableConfig): Promise<unknown> {
    let outputs: Array<ToolMessage | Command>;
    if (!Array.isArray(input) && "lg_tool_call" in input) {
      const { lg_tool_call: call, ...state } = input;
      outputs = [await this.runTool(call, config, state)];
    } else {
      const messages = isMessageList(input)
        ? input
        : isMessageList((input as { messages?: unknown }).messages)
          ? (input as { messages: BaseMessage[] }).messages
          : undefined;
      if (!messages)
        throw new Error(
          "ToolNode only accepts BaseMessage[] or { messages: BaseMessage[] } as input.",
        );
      if (!messages.some(isAIMessage))
        throw new Error("ToolNode only accepts AIMessages as input.");
      const calls = pendingToolCalls(messages);
      // One call (the common case) awaited alone: no `Promise.all` around it.
      outputs =
        calls.length === 1
          ? [await this.runTool(calls[0]!, config, input)]
          : await Promise.all(calls.map((call) => this.runTool(call, config, input)));
    }
    if (!outputs.some(isCommand)) return Array.isArray(input) ? outputs : { messages: outputs };
    // Commands go out as they are; plain answers as updates beside them.
    return outputs.map((output) =>
      isCommand(output) ? output : Array.isArray(input) ? [output] : { messages: [output] },
    );
  }

  private async runTool(
    call: ToolCall,
    config: RunnableConfig | undefined,
    state: unknown,
  ): Promise<ToolMessage | Command> {
    const tool = this.byName.get(call.name);
    try {
      if (tool === undefined) throw new Error(`Tool "${call.name}" not found.`);
      // The tool's second argument is LangChain's `ToolRuntime`: the run's config spread out (as
      // LangChain's tools read it) and, as LangGraph.js's ToolNode gives it, also whole as
      // `config`, with the node's input as `state`, the call's id, the store and the writer.
      const run = (config ?? {}) as RunnableConfig & {
        context?: unknown;
        store?: unknown;
        writer?: unknown;
      };
      const output: unknown = await (tool as Runnable).invoke({ ...call, type: "tool_call" }, {
        ...run,
        state,
        toolCallId: call.id ?? "",
        config: run,
        context: run.context,
        store: run.store ?? null,
        writer: run.writer ?? run.configurable?.writer ?? null,
      } as RunnableConfig);
      if ((isBaseMessage(output) && output.getType() === "tool") || isCommand(output))
        return output as ToolMessage | Command;
      return new ToolMessage({
        status: "success",
        name: tool.name,
        content: typeof output === "string" ? output : JSON.stringify(output),
        tool_call_id: call.id ?? "",
      });
    } catch (error) {
      if (!this.handleToolErrors || isGraphInterrupt(error)) throw error;
      return new ToolMessage({
        status: "error",
        content: `Error: ${(error as Error).message}\n Please fix your mistakes.`,
        name: call.name,
        tool_call_id: call.id ?? "",
      });
    }
  }
}
