/**
 * The bench's chat model: answers instantly, with no I/O. While the conversation since the last
 * human message has fewer than `rounds` tool answers it asks for one more `add` call, then it
 * answers. Decided from the messages alone, so one instance serves every run.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

export class RoundsModel extends BaseChatModel {
  constructor(private readonly rounds: number) {
    super({});
  }

  _llmType(): string {
    return "rounds";
  }

  override bindTools(): this {
    return this;
  }

  /** What the model answers to `messages` (also used to measure the model's own cost). */
  answer(messages: BaseMessage[]): AIMessageChunk {
    let tools = 0;
    for (let i = messages.length - 1; i >= 0; i -= 1) {
      const type = messages[i]!.getType();
      if (type === "human") break;
      if (type === "tool") tools += 1;
    }
    if (tools >= this.rounds) return new AIMessageChunk({ content: `done after ${tools} rounds` });
    return new AIMessageChunk({
      content: "",
      tool_calls: [{ id: `call-${messages.length}`, name: "add", args: { a: tools, b: 1 } }],
    });
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.answer(messages);
    return { generations: [{ text: String(message.content), message }] };
  }
}
