import type {
  BaseCallbackHandler,
  HandleLLMNewTokenCallbackFields,
} from "@langchain/core/callbacks/base";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { loadOptionalPeer } from "../../core/index.js";
import { isCommand } from "../command.js";
import { KEEL_HANDLER } from "../tracing/index.js";
import { isMessageLike, lcMessages } from "./langchain-messages.js";

/** What `streamMode: "messages"` yields: a message (or a chunk of one) and where it came from. */
export type MessageStreamChunk = [BaseMessage, Record<string, unknown>];

/** Where a node's task runs, as the stream's metadata says it (LangGraph.js's keys). */
export interface NodeStreamInfo {
  node: string;
  step: number;
  taskId: string;
  triggers: string[];
  path: [string, string | number];
}

interface LlmRunStart {
  metadata: Record<string, unknown>;
  streamed: boolean;
}

type HandlerClass = new () => BaseCallbackHandler;

/**
 * Feeds `streamMode: "messages"`: the tokens of every chat model called inside the run, as the
 * model streams them (through a LangChain callback handler added to the run's callbacks), and the
 * messages nodes return that were not streamed already (a node's output is matched by message
 * id against what the model streamed and what the node read). Loads `@langchain/core` only
 * when this mode is asked for.
 */
export class MessagesStream {
  private readonly seen = new Set<string>();
  private readonly runs = new Map<string, LlmRunStart>();
  private handlerInstance: BaseCallbackHandler | undefined;

  constructor(
    private readonly push: (chunk: MessageStreamChunk) => void,
    private readonly tags: string[] = [],
  ) {}

  /** The callback handler to add to the run's callbacks. */
  handler(): BaseCallbackHandler {
    this.handlerInstance ??= this.makeHandler();
    return this.handlerInstance;
  }

  /** A node starts: the messages it reads are not news. */
  nodeStart(input: unknown): void {
    if (typeof input !== "object" || input === null) return;
    for (const value of Object.values(input)) {
      if (Array.isArray(value)) {
        for (const item of value) if (isMessageLike(item) && item.id) this.seen.add(item.id);
      } else if (isMessageLike(value) && value.id) this.seen.add(value.id);
    }
  }

  /** A node finished: the messages of its update that nobody streamed yet. */
  nodeEnd(info: NodeStreamInfo, update: unknown): void {
    const metadata = this.metadataOf(info);
    const emit = (value: unknown) => {
      if (!isMessageLike(value)) return;
      if (value.id && this.seen.has(value.id)) return;
      if (value.id) this.seen.add(value.id);
      this.push([value, metadata]);
    };
    const walk = (output: unknown): void => {
      if (isCommand(output)) walk(output.update);
      else if (isMessageLike(output)) emit(output);
      else if (Array.isArray(output)) for (const item of output) walk(item);
      else if (typeof output === "object" && output !== null)
        for (const value of Object.values(output)) {
          if (Array.isArray(value)) for (const item of value) emit(item);
          else emit(value);
        }
    };
    walk(update);
  }

  private metadataOf(info: NodeStreamInfo): Record<string, unknown> {
    return {
      tags: this.tags,
      langgraph_step: info.step,
      langgraph_node: info.node,
      langgraph_triggers: info.triggers,
      langgraph_path: info.path,
      langgraph_checkpoint_ns: `${info.node}:${info.taskId}`,
    };
  }

  private makeHandler(): BaseCallbackHandler {
    const { BaseCallbackHandler: Base } = loadOptionalPeer<{ BaseCallbackHandler: HandlerClass }>(
      "@langchain/core/callbacks/base",
    );
    const stream = this;
    const lc = lcMessages();
    class KeelMessagesHandler extends Base {
      name = "KeelMessagesHandler";
      lc_prefer_streaming = true;
      readonly [KEEL_HANDLER] = true;

      override handleChatModelStart(
        _llm: unknown,
        _messages: unknown,
        runId: string,
        _parentRunId?: string,
        _extra?: unknown,
        tags?: string[],
        metadata?: Record<string, unknown>,
        name?: string,
      ): void {
        // Only models called inside a node (whose config carries the node's metadata).
        if (!metadata?.langgraph_node) return;
        if (tags?.includes("nostream") || tags?.includes("langsmith:nostream")) return;
        stream.runs.set(runId, { metadata: { tags, name, ...metadata }, streamed: false });
      }

      override handleLLMNewToken(
        token: string,
        _index: unknown,
        runId: string,
        _parentRunId?: string,
        _tags?: string[],
        fields?: HandleLLMNewTokenCallbackFields,
      ): void {
        const run = stream.runs.get(runId);
        if (!run) return;
        run.streamed = true;
        const message = (fields?.chunk as { message?: unknown } | undefined)?.message;
        const chunk = isMessageLike(message) ? message : new lc.AIMessageChunk({ content: token });
        // A chunk without an id gets the model call's (`run-<runId>`, the id LangChain gives the
        // whole message), as LangGraph.js does: a client can join the chunks to the message.
        if (chunk.id == null) {
          chunk.id = `run-${runId}`;
          (chunk as { lc_kwargs?: Record<string, unknown> }).lc_kwargs ??= {};
          (chunk as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.id = chunk.id;
        }
        stream.seen.add(chunk.id);
        stream.push([chunk, run.metadata]);
      }

      override handleLLMEnd(output: LLMResult, runId: string): void {
        const run = stream.runs.get(runId);
        stream.runs.delete(runId);
        if (!run) return;
        const message = (output.generations?.[0]?.[0] as { message?: unknown } | undefined)
          ?.message;
        if (!isMessageLike(message)) return;
        // Streamed: the whole message is the sum of its chunks, already sent (its id marks it).
        if (run.streamed) {
          if (message.id) stream.seen.add(message.id);
          return;
        }
        if (message.id && stream.seen.has(message.id)) return;
        if (message.id) stream.seen.add(message.id);
        stream.push([message, run.metadata]);
      }

      override handleLLMError(_error: unknown, runId: string): void {
        stream.runs.delete(runId);
      }
    }
    return new KeelMessagesHandler();
  }
}

/** The run's callbacks with `handler` added (a list, or a CallbackManager's copy). */
export function withHandler(
  callbacks: Callbacks | undefined,
  handler: BaseCallbackHandler,
): Callbacks {
  if (callbacks === undefined) return [handler];
  if (Array.isArray(callbacks)) return [...callbacks, handler];
  // A CallbackManager: a copy with one handler more (inheritable, so nested runs see it too).
  const copy = callbacks.copy();
  copy.addHandler(handler, true);
  return copy;
}
