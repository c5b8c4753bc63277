import {
  type AIMessage,
  type BaseMessage,
  isAIMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall } from "@langchain/core/messages/tool";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";
import { isKeelError, KeelError } from "../../core/index.js";
import { isGraphInterrupt, type RunConfig } from "../../graph/index.js";
import {
  type GovernedNodeOptions,
  type GovernedRuntime,
  governedNode,
  type NodeContext,
} from "../../runtime/index.js";

/** Options of `governedToolNode`. */
export interface GovernedToolNodeOptions extends GovernedNodeOptions {
  /** The runtime whose registry, gates, ledger and approvals the calls go through. */
  runtime: GovernedRuntime;
  /** The registry ids (`namespace.name`) of the tools the model may call. */
  tools: string[];
}

/** A tool as a chat model's `bindTools` takes it (OpenAI's function format). */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Errors that are the model's to read (the call did not happen), not the run's to fail on. */
export const ANSWERED = new Set([
  "APPROVAL_DENIED",
  "APPROVAL_EXPIRED",
  "GATE_BLOCKED",
  "TOOL_NOT_FOUND",
  "TOOL_INPUT_INVALID",
  "TOOL_FORBIDDEN",
  "CAPABILITY_MISSING",
  "TOOL_CALL_FAILED",
]);

type Pending = { call: ToolCall; invalid?: undefined } | { invalid: InvalidToolCall };

function pendingCalls(messages: BaseMessage[]): Pending[] {
  let ai: AIMessage | undefined;
  for (let i = messages.length - 1; i >= 0 && !ai; i -= 1) {
    const message = messages[i]!;
    if (isAIMessage(message)) ai = message;
  }
  if (!ai) return [];
  const answered = new Set<string>();
  for (const message of messages)
    if (message.getType() === "tool") answered.add((message as ToolMessage).tool_call_id);
  const open = (id: string | undefined) => id === undefined || !answered.has(id);
  return [
    ...(ai.tool_calls ?? []).filter((c) => open(c.id)).map((call) => ({ call })),
    ...(ai.invalid_tool_calls ?? []).filter((c) => open(c.id)).map((invalid) => ({ invalid })),
  ];
}

/**
 * A tool node whose every call is governed: it runs the tool calls of the last AI message through
 * the runtime's gates (autonomy × risk), approvals and tool-call ledger, as one governed step
 * (`governedNode`). The idempotency key of a call is `<run>:<node>#<visit>:<tool call id>`, so
 * after a pause or a crash a call that succeeded is answered from the ledger and never made
 * again. A gated call pauses the run (the interrupt's value is the approval request); once
 * decided, `runtime.resume` continues it. What the model should hear about — a denied or blocked
 * call, an unknown tool, arguments that are not JSON or fail the tool's schema, a tool's clean
 * failure — comes back as an error `ToolMessage` (audited by the ledger, nothing run). Calls run
 * one after another, in the model's order, so pauses and keys are deterministic.
 *
 * Use it as a graph node, or as `createReactAgent`'s `tools`; bind `node.definitions` to the
 * model so it knows the tools.
 *
 * @example
 * const tools = governedToolNode({ runtime, tools: ["payments.refund", "orders.lookup"] });
 * const agent = createReactAgent({ llm: model, tools, checkpointer: runtime.checkpointer });
 * const started = await runtime.start({ graph: agent, input: { messages }, autonomy: "A2" });
 */
export function governedToolNode(options: GovernedToolNodeOptions): GovernedToolNode {
  return new GovernedToolNode(options);
}

/** The node `governedToolNode` makes (a LangChain Runnable, so `addNode` and `createReactAgent` take it). */
export class GovernedToolNode extends Runnable<{ messages: BaseMessage[] }, unknown> {
  lc_namespace = ["keel", "agents"];
  /** The tools as the model is told about them: `model.bindTools(node.definitions)`. */
  readonly definitions: ToolDefinition[];
  /** What `createReactAgent` binds (same as `definitions`). */
  readonly tools: ToolDefinition[];
  /** Unlike LangGraph's ToolNode, this node answers malformed (invalid) tool calls too. */
  readonly answersInvalidToolCalls = true;
  private readonly byName = new Map<string, string>();
  private readonly run: (
    state: { messages: BaseMessage[] },
    config?: RunConfig,
  ) => Promise<unknown>;

  constructor(private readonly options: GovernedToolNodeOptions) {
    super();
    this.name = "tools";
    const { runtime } = options;
    this.definitions = options.tools.map((id) => {
      const tool = runtime.tools.get(id);
      if (this.byName.has(tool.spec.name)) {
        throw new KeelError(
          "INVALID_ARGUMENT",
          `Two tools of the node are named "${tool.spec.name}"; the model calls tools by name.`,
          { details: { tools: options.tools }, hint: "Give the tools distinct names." },
        );
      }
      this.byName.set(tool.spec.name, id);
      return {
        type: "function",
        function: {
          name: tool.spec.name,
          description: tool.spec.description,
          parameters: tool.spec.input_schema as Record<string, unknown>,
        },
      };
    });
    this.tools = this.definitions;
    this.run = governedNode(
      async (state: { messages: BaseMessage[] }, ctx: NodeContext) => {
        const answers: ToolMessage[] = [];
        for (const pending of pendingCalls(state.messages))
          answers.push(
            pending.invalid
              ? await this.refuseMalformed(ctx, pending.invalid)
              : await this.callTool(ctx, pending.call),
          );
        return { messages: answers };
      },
      { retry: options.retry, maxAttempts: options.maxAttempts },
    );
  }

  async invoke(input: { messages: BaseMessage[] }, config?: RunnableConfig): Promise<unknown> {
    return this.run(input, config as RunConfig);
  }

  private async callTool(ctx: NodeContext, call: ToolCall): Promise<ToolMessage> {
    const id = this.byName.get(call.name);
    try {
      // A name the node does not offer is refused by the ledger's admission (audited).
      const output = await ctx.call(id ?? `unknown.${call.name}`, call.args, {
        key: call.id ?? call.name,
      });
      return new ToolMessage({
        status: "success",
        name: call.name,
        content: typeof output === "string" ? output : JSON.stringify(output),
        tool_call_id: call.id ?? "",
      });
    } catch (error) {
      if (isGraphInterrupt(error) || !isKeelError(error) || !ANSWERED.has(error.code)) throw error;
      return new ToolMessage({
        status: "error",
        name: call.name,
        content: `Error: ${error.code}: ${error.message}${error.hint ? ` ${error.hint}` : ""}`,
        tool_call_id: call.id ?? "",
      });
    }
  }

  /** A call whose arguments are not JSON: audited as refused, answered, nothing run. */
  private async refuseMalformed(ctx: NodeContext, call: InvalidToolCall): Promise<ToolMessage> {
    const name = call.name ?? "(no name)";
    const toolId = (call.name && this.byName.get(call.name)) ?? name;
    const reason = call.error ?? "the arguments are not valid JSON";
    await this.options.runtime.audit.write(ctx.traceId, {
      stage: "tool_call",
      type: "tool_call.refused",
      summary: `${toolId}: refused (TOOL_INPUT_INVALID): malformed arguments`,
      outcome: "failure",
      refs: { task_id: ctx.runId, step_id: ctx.step.id, event_id: null },
      toolName: toolId,
      payload: {
        code: "TOOL_INPUT_INVALID",
        tool_call_id: call.id ?? null,
        args: call.args ?? null,
        reason,
      },
    });
    return new ToolMessage({
      status: "error",
      name,
      content: `Error: TOOL_INPUT_INVALID: the arguments of "${name}" are not valid JSON (${reason}); nothing was run. Send the call again with a JSON object as arguments.`,
      tool_call_id: call.id ?? "",
    });
  }
}
