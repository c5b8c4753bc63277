import { GraphDrained, isGraphInterrupt } from "../errors.js";
import { KEEL_HANDLER } from "../tracing/index.js";
import { type KeelHandler, taskNamespace } from "./messages-stream.js";

/** What `streamMode: "tools"` yields: one event of a tool call's life (LangGraph.js's shape). */
export type StreamToolsOutput =
  | { event: "on_tool_start"; toolCallId: string | undefined; name: string; input: unknown }
  | { event: "on_tool_event"; toolCallId: string | undefined; name: string; data: unknown }
  | { event: "on_tool_end"; toolCallId: string | undefined; name: string; output: unknown }
  | { event: "on_tool_error"; toolCallId: string | undefined; name: string; error: unknown };

interface ToolRun {
  namespace: string[];
  toolCallId: string | undefined;
  name: string;
}

/**
 * The namespace of the graph a tool ran in: the checkpoint namespace of the node that called it,
 * without the node's own segment.
 */
function graphNamespace(metadata: Record<string, unknown>): string[] {
  return taskNamespace(metadata).slice(0, -1);
}

/**
 * Feeds `streamMode: "tools"`: the start, progress, end or error of every LangChain tool called
 * inside the run's nodes (a `ToolNode`'s, or a tool a node calls with its config), through a
 * callback handler added to the run's callbacks. The handler's callbacks are awaited, so a tool's
 * events are in the stream before its node's update. Loads `@langchain/core` only when this mode
 * is asked for.
 *
 * @example
 * for await (const [mode, chunk] of await graph.stream(input, { streamMode: ["updates", "tools"] }))
 *   if (mode === "tools") console.log(chunk.event, chunk.name);
 */
export class ToolsStream {
  private readonly runs = new Map<string, ToolRun>();
  private handlerInstance: KeelHandler | undefined;

  /**
   * @param push gets each event with the namespace of the graph whose node ran the tool.
   * @param root the namespace of the streamed graph; with `subgraphs` false, events of tools run
   *   deeper are left out (as LangGraph.js does).
   */
  constructor(
    private readonly push: (namespace: string[], event: StreamToolsOutput) => void,
    private readonly root: string[] | undefined,
    /** `streamEvents` v3: each event under the namespace of the task that ran the tool. */
    private readonly taskLevel = false,
  ) {}

  /** The callback handler to add to the run's callbacks. */
  handler(): KeelHandler {
    this.handlerInstance ??= this.makeHandler();
    return this.handlerInstance;
  }

  private start(
    runId: string,
    input: unknown,
    metadata: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    name: string | undefined,
    toolCallId: string | undefined,
  ): void {
    // Only tools run inside a node (whose config carries its metadata), and not hidden ones.
    if (!metadata || tags?.includes("langsmith:hidden")) return;
    const namespace = this.taskLevel ? taskNamespace(metadata) : graphNamespace(metadata);
    if (this.root && namespace.join("|") !== this.root.join("|")) return;
    const run: ToolRun = { namespace, toolCallId, name: name ?? "unknown" };
    this.runs.set(runId, run);
    this.push(namespace, { event: "on_tool_start", toolCallId, name: run.name, input });
  }

  /** LangChain callback methods (wrapped by LangChain when a tool runs; nothing loaded here). */
  private makeHandler(): KeelHandler {
    const stream = this;
    const runs = this.runs;
    return {
      // The events reach the stream before the tool's result reaches its node.
      awaitHandlers: true,
      [KEEL_HANDLER]: true,

      handleToolStart(
        _tool: unknown,
        input: string,
        runId: string,
        _parentRunId?: string,
        tags?: string[],
        metadata?: Record<string, unknown>,
        runName?: string,
        toolCallId?: string,
      ): void {
        stream.start(runId, input, metadata, tags, runName, toolCallId);
      },

      handleToolEvent(chunk: unknown, runId: string): void {
        const run = runs.get(runId);
        if (!run) return;
        stream.push(run.namespace, {
          event: "on_tool_event",
          toolCallId: run.toolCallId,
          name: run.name,
          data: chunk,
        });
      },

      handleToolEnd(output: unknown, runId: string): void {
        const run = runs.get(runId);
        runs.delete(runId);
        if (!run) return;
        stream.push(run.namespace, {
          event: "on_tool_end",
          toolCallId: run.toolCallId,
          name: run.name,
          output,
        });
      },

      handleToolError(error: unknown, runId: string): void {
        const run = runs.get(runId);
        runs.delete(runId);
        // An interrupt (or a drain) inside a tool pauses the run; it is not the tool failing.
        if (!run || isGraphInterrupt(error) || error instanceof GraphDrained) return;
        stream.push(run.namespace, {
          event: "on_tool_error",
          toolCallId: run.toolCallId,
          name: run.name,
          error,
        });
      },
    };
  }
}
