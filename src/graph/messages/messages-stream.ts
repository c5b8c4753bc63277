import type {
  CallbackHandlerMethods,
  HandleLLMNewTokenCallbackFields,
} from "@langchain/core/callbacks/base";
import type * as LcManager from "@langchain/core/callbacks/manager";
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
  /** The namespace of the graph the node ran in (`""` at the root). */
  ns?: string;
}

interface LlmRunStart {
  metadata: Record<string, unknown>;
  streamed: boolean;
  /** The id the run's first chunk went out with: later chunks without one get it too. */
  messageId?: string;
}

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
  private handlerInstance: KeelHandler | undefined;

  /**
   * @param push gets each message (or chunk) with its metadata; with `protocol`, each protocol
   *   event of a message instead (`message-start`, `content-block-*`, `message-finish`).
   * @param protocol `streamEvents` v3's `messages` channel: a streaming model's events as
   *   LangChain makes them, a whole message as the same events.
   */
  constructor(
    private readonly push: (chunk: MessageStreamChunk) => void,
    private readonly tags: string[] = [],
    private readonly protocol = false,
  ) {}

  /** The callback handler to add to the run's callbacks. */
  handler(): KeelHandler {
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
      // The protocol channel carries what models said, not tools' answers (as LangGraph.js).
      if (this.protocol && value.getType() === "tool") return;
      if (value.id) this.seen.add(value.id);
      this.emitMessage(value, metadata);
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

  /** A whole message: as it is, or (protocol) as the events a model streaming it would send. */
  private emitMessage(message: BaseMessage, metadata: Record<string, unknown>): void {
    if (!this.protocol) {
      this.push([message, metadata]);
      return;
    }
    for (const event of messageEvents(message))
      this.push([event as unknown as BaseMessage, metadata]);
  }

  private metadataOf(info: NodeStreamInfo): Record<string, unknown> {
    const taskNs = `${info.node}:${info.taskId}`;
    const metadata: Record<string, unknown> = {
      tags: this.tags,
      langgraph_step: info.step,
      langgraph_node: info.node,
      langgraph_triggers: info.triggers,
      langgraph_path: info.path,
      langgraph_checkpoint_ns: taskNs,
    };
    // A subgraph's node: the whole path, as its model's runs carry it (v3 places events by it).
    if (info.ns) metadata.checkpoint_ns = `${info.ns}|${taskNs}`;
    return metadata;
  }

  /**
   * The handler as LangChain callback methods, not a `BaseCallbackHandler`: LangChain wraps it
   * when a model runs, so streaming messages never loads LangChain's callbacks here. It has no
   * `name` (LangChain wraps only objects without one).
   */
  private makeHandler(): KeelHandler {
    const stream = this;
    const { runs, seen } = this;
    return {
      // Token by token (v1), or LangChain's content-block events (v3's `messages` channel).
      lc_prefer_streaming: !stream.protocol,
      lc_prefer_chat_model_stream_events: stream.protocol,
      [KEEL_HANDLER]: true,
      // v3's handler is another kind (LangGraph.js dedupes handlers of one kind only).
      [MESSAGES_HANDLER]: !stream.protocol,

      handleChatModelStart(
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
        const meta: Record<string, unknown> = { tags, name, ...metadata };
        if (stream.protocol) meta.run_id = runId;
        runs.set(runId, { metadata: meta, streamed: false });
      },

      handleChatModelStreamEvent(event: { event: string; id?: string }, runId: string): void {
        const run = runs.get(runId);
        if (!run) return;
        run.streamed = true;
        let forwarded = event;
        if (event.event === "message-start") {
          const id = event.id ?? `run-${runId}`;
          seen.add(id);
          if (event.id == null) forwarded = { ...event, id };
        }
        stream.push([forwarded as unknown as BaseMessage, run.metadata]);
      },

      handleLLMNewToken(
        token: string,
        _index: unknown,
        runId: string,
        _parentRunId?: string,
        _tags?: string[],
        fields?: HandleLLMNewTokenCallbackFields,
      ): void {
        const run = runs.get(runId);
        if (!run || stream.protocol) return;
        run.streamed = true;
        const message = (fields?.chunk as { message?: unknown } | undefined)?.message;
        const chunk = isMessageLike(message)
          ? message
          : new (lcMessages().AIMessageChunk)({ content: token });
        // A chunk without an id gets the id of the run's first chunk, else the model call's
        // (`run-<runId>`, the id LangChain gives the whole message), as LangGraph.js does: a
        // client can join the chunks to one message even when only the first chunk names it.
        const runDefault = `run-${runId}`;
        const id =
          chunk.id == null || chunk.id === runDefault ? (run.messageId ?? runDefault) : chunk.id;
        if (id !== chunk.id) {
          chunk.id = id;
          (chunk as { lc_kwargs?: Record<string, unknown> }).lc_kwargs ??= {};
          (chunk as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.id = id;
        }
        run.messageId ??= id;
        seen.add(id);
        stream.push([chunk, run.metadata]);
      },

      handleLLMEnd(output: LLMResult, runId: string): void {
        const run = runs.get(runId);
        runs.delete(runId);
        if (!run) return;
        const message = (output.generations?.[0]?.[0] as { message?: unknown } | undefined)
          ?.message;
        if (!isMessageLike(message)) return;
        // Streamed: the whole message is the sum of its chunks, already sent (its id marks it).
        if (run.streamed) {
          if (message.id) seen.add(message.id);
          return;
        }
        if (stream.protocol && message.id == null) message.id = `run-${runId}`;
        if (message.id && seen.has(message.id)) return;
        if (message.id) seen.add(message.id);
        stream.emitMessage(message, run.metadata);
      },

      handleLLMError(_error: unknown, runId: string): void {
        runs.delete(runId);
      },
    };
  }
}

/** Marks the handler of a `messages` stream (LangChain copies it onto the handler it wraps). */
const MESSAGES_HANDLER = Symbol.for("keel.messagesHandler");

/**
 * True when `callbacks` already carry a `messages` stream's handler: those of a node a graph is
 * streamed inside, itself streaming messages.
 */
export function hasMessagesHandler(callbacks: Callbacks | undefined): boolean {
  if (callbacks === undefined || callbacks === null) return false;
  const handlers: unknown[] = Array.isArray(callbacks) ? callbacks : callbacks.handlers;
  return handlers.some(
    (handler) => (handler as { [MESSAGES_HANDLER]?: boolean } | null)?.[MESSAGES_HANDLER] === true,
  );
}

/** The callbacks without `messages` stream handlers (a list: an untraced run's Keel handlers). */
export function withoutMessagesHandler(callbacks: Callbacks | undefined): Callbacks | undefined {
  if (!Array.isArray(callbacks)) return callbacks;
  return callbacks.filter(
    (handler) => (handler as { [MESSAGES_HANDLER]?: boolean })[MESSAGES_HANDLER] !== true,
  );
}

/** A handler Keel adds for a stream mode: LangChain callback methods, marked as Keel's. */
export type KeelHandler = CallbackHandlerMethods & {
  readonly [KEEL_HANDLER]: true;
  readonly [MESSAGES_HANDLER]?: boolean;
  awaitHandlers?: boolean;
  lc_prefer_streaming?: boolean;
  lc_prefer_chat_model_stream_events?: boolean;
  handleChatModelStreamEvent?(event: { event: string; id?: string }, runId: string): void;
};

/** The namespace of the task whose config carried `metadata` (its node's segment last). */
export function taskNamespace(metadata: Record<string, unknown> | undefined): string[] {
  const ns = (metadata?.checkpoint_ns ?? metadata?.langgraph_checkpoint_ns) as string | undefined;
  return ns ? ns.split("|") : [];
}

/** The run's callbacks with `handler` added (a list, or a CallbackManager's copy). */
export function withHandler(callbacks: Callbacks | undefined, handler: KeelHandler): Callbacks {
  if (callbacks === undefined) return [handler];
  if (Array.isArray(callbacks)) return [...callbacks, handler];
  // A CallbackManager (so LangChain is loaded): a copy with one handler more (inheritable, so
  // nested runs see it too).
  const { ensureHandler } = loadOptionalPeer<typeof LcManager>("@langchain/core/callbacks/manager");
  const copy = callbacks.copy();
  copy.addHandler(ensureHandler(handler), true);
  return copy;
}

/** A content block of a message, as LangChain's content-block events carry it. */
type ContentBlock = Record<string, unknown> & { type?: string; index?: number };

/**
 * The protocol events of a whole message, as a model streaming it would send them (LangGraph.js's
 * v3 shape): `message-start` (with its id, and its role when not an AI's), each content block's
 * `content-block-start`, `content-block-delta` (text and reasoning) and `content-block-finish`,
 * then `message-finish` with its usage and response metadata.
 */
export function messageEvents(message: BaseMessage): Record<string, unknown>[] {
  const type = message.getType();
  const role = type === "human" || type === "system" || type === "tool" ? type : "ai";
  const start: Record<string, unknown> = { event: "message-start" };
  if (message.id != null) start.id = message.id;
  if (role !== "ai") start.role = role;
  const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
  if (role === "tool" && typeof toolCallId === "string") start.tool_call_id = toolCallId;
  const events: Record<string, unknown>[] = [start];
  const content = message.content as unknown;
  const blocks: ContentBlock[] = Array.isArray(content)
    ? (content as ContentBlock[])
    : typeof content === "string" && content.length > 0
      ? [{ type: "text", text: content }]
      : [];
  blocks.forEach((block, offset) => {
    const index = typeof block.index === "number" ? block.index : offset;
    events.push({ event: "content-block-start", index, content: emptyBlock(block) });
    const delta = blockDelta(block);
    if (delta) events.push({ event: "content-block-delta", index, delta });
    events.push({ event: "content-block-finish", index, content: block });
  });
  const finish: Record<string, unknown> = { event: "message-finish" };
  const usage = (message as { usage_metadata?: unknown }).usage_metadata;
  if (usage != null && typeof usage === "object") finish.usage = usage;
  const response = message.response_metadata as unknown;
  if (response != null && typeof response === "object") finish.responseMetadata = response;
  events.push(finish);
  return events;
}

/** A block as it starts streaming: its kind, its text still empty. */
function emptyBlock(block: ContentBlock): ContentBlock {
  if (block.type === "text") return { type: "text", text: "" };
  if (block.type === "reasoning") return { type: "reasoning", reasoning: "" };
  if (block.type === "tool_call" || block.type === "tool_call_chunk") {
    const start: ContentBlock = { type: "tool_call_chunk", args: "" };
    if (block.id != null) start.id = block.id;
    if (block.name != null) start.name = block.name;
    return start;
  }
  return block;
}

/** The one delta that streams a whole block, or undefined when it has nothing to stream. */
function blockDelta(block: ContentBlock): Record<string, unknown> | undefined {
  if (block.type === "text" && typeof block.text === "string" && block.text.length > 0)
    return { type: "text-delta", text: block.text };
  if (
    block.type === "reasoning" &&
    typeof block.reasoning === "string" &&
    block.reasoning.length > 0
  )
    return { type: "reasoning-delta", reasoning: block.reasoning };
  if (block.type === "tool_call_chunk")
    return { type: "block-delta", fields: { ...block, type: "tool_call_chunk" } };
  return undefined;
}
