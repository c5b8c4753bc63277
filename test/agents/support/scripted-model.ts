/**
 * A chat model that answers from a script, one entry per call, for the agent tests: the same
 * script on Keel and on LangGraph.js gives the same conversation. It streams its answers word by
 * word (so `streamMode: "messages"` has chunks to show) and binds tools by keeping them.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import {
  BaseChatModel,
  type BaseChatModelParams,
} from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";

export interface ScriptEntry {
  content?: string;
  tool_calls?: ToolCall[];
  /** Throw this instead of answering. */
  error?: string;
}

export class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  boundTools: unknown[] = [];
  private turn = 0;

  constructor(
    private readonly script: ScriptEntry[],
    params: BaseChatModelParams = {},
  ) {
    super(params);
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: unknown[]): this {
    this.boundTools = tools;
    return this;
  }

  private next(messages: BaseMessage[]): ScriptEntry {
    this.seen.push(messages);
    const entry = this.script[Math.min(this.turn, this.script.length - 1)] ?? { content: "" };
    this.turn += 1;
    if (entry.error) throw new Error(entry.error);
    return entry;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const entry = this.next(messages);
    // A chunk, as real providers' models return (withStructuredOutput's parser insists on one).
    const message = new AIMessageChunk({
      content: entry.content ?? "",
      tool_calls: entry.tool_calls ?? [],
    });
    return { generations: [{ text: entry.content ?? "", message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const entry = this.next(messages);
    const words = (entry.content ?? "").split(/(?<= )/).filter((w) => w.length > 0);
    for (const word of words) {
      const chunk = new ChatGenerationChunk({
        text: word,
        message: new AIMessageChunk({ content: word }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
    if (entry.tool_calls?.length) {
      const chunk = new ChatGenerationChunk({
        text: "",
        message: new AIMessageChunk({
          content: "",
          tool_call_chunks: entry.tool_calls.map((call, index) => ({
            id: call.id,
            name: call.name,
            args: JSON.stringify(call.args),
            index,
            type: "tool_call_chunk" as const,
          })),
        }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken("", undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
  }
}
