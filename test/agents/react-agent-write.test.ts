import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createReactAgent } from "../../src/agents/index.js";
import { Annotation } from "../../src/graph/index.js";
import { ScriptedChatModel } from "./support/scripted-model.js";
import { add } from "./support/tools.js";

/**
 * The model node writes the message the state stores: a model's chunk is written as its
 * `AIMessage` (what `messagesStateReducer` keeps), so a saver serialises it once and stores the
 * write as the list's append.
 */
const script = () =>
  new ScriptedChatModel([
    { tool_calls: [{ id: "c1", name: "add", args: { a: 1, b: 2 }, type: "tool_call" }] },
    { content: "3" },
  ]);

async function agentUpdates(agent: ReturnType<typeof createReactAgent>) {
  const updates: BaseMessage[] = [];
  for await (const chunk of await agent.stream(
    { messages: [new HumanMessage("1 + 2?")] },
    { streamMode: "updates" },
  )) {
    const update = (chunk as { agent?: { messages: BaseMessage[] } }).agent;
    if (update) updates.push(...update.messages);
  }
  return updates;
}

describe("createReactAgent's model node", () => {
  it("writes a model's chunk as the AIMessage the state stores", async () => {
    const agent = createReactAgent({ llm: script(), tools: [add] });
    const written = await agentUpdates(agent);
    expect(written).toHaveLength(2);
    for (const message of written) {
      expect(message).toBeInstanceOf(AIMessage);
      expect(message).not.toBeInstanceOf(AIMessageChunk);
    }
    const again = createReactAgent({ llm: script(), tools: [add] });
    const final = (await again.invoke({ messages: [new HumanMessage("1 + 2?")] })) as {
      messages: BaseMessage[];
    };
    expect(final.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect((final.messages[1] as AIMessage).tool_calls?.[0]?.id).toBe("c1");
    expect(final.messages[1]).toBeInstanceOf(AIMessage);
  });

  it("writes the model's answer as it is under a messages key with another reducer", async () => {
    const State = Annotation.Root({
      messages: Annotation<BaseMessage[]>({
        reducer: (left, right) => left.concat(right),
        default: () => [],
      }),
    });
    const agent = createReactAgent({ llm: script(), tools: [add], stateSchema: State });
    const written = await agentUpdates(agent);
    expect(written[0]).toBeInstanceOf(AIMessageChunk);
  });
});
