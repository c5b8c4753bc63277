import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createReactAgent } from "../../src/agents/index.js";
import { END, MessagesAnnotation, type RunConfig, START, StateGraph } from "../../src/index.js";
import { ScriptedChatModel } from "./support/scripted-model.js";
import { add } from "./support/tools.js";

async function collect(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe('streamMode "messages"', () => {
  it("streams the model's tokens as it answers, then the tool's message, with metadata", async () => {
    const agent = createReactAgent({
      llm: new ScriptedChatModel([
        { content: "Let me add. ", tool_calls: [{ id: "c1", name: "add", args: { a: 1, b: 2 } }] },
        { content: "The sum is 3." },
      ]),
      tools: [add],
    });
    const chunks = (await collect(
      await agent.stream(
        { messages: [new HumanMessage("1+2?")] },
        { streamMode: "messages", tags: ["demo"] },
      ),
    )) as Array<[BaseMessage, Record<string, unknown>]>;
    const shown = chunks.map(([m, meta]) => [m.constructor.name, m.content, meta.langgraph_node]);
    expect(shown).toEqual([
      ["AIMessageChunk", "Let ", "agent"],
      ["AIMessageChunk", "me ", "agent"],
      ["AIMessageChunk", "add. ", "agent"],
      ["AIMessageChunk", "", "agent"],
      ["ToolMessage", "3", "tools"],
      ["AIMessageChunk", "The ", "agent"],
      ["AIMessageChunk", "sum ", "agent"],
      ["AIMessageChunk", "is ", "agent"],
      ["AIMessageChunk", "3.", "agent"],
    ]);
    const [, first] = chunks[0]!;
    expect(first.langgraph_step).toBe(1);
    expect(first.tags).toContain("demo");
    expect(chunks[5]?.[1].langgraph_step).toBe(3);
    // The streamed tool-call chunk carries the call.
    expect((chunks[3]![0] as AIMessageChunk).tool_call_chunks?.[0]?.name).toBe("add");
  });

  it("yields messages a node returns without a model, once, and not the input's", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("say", () => ({ messages: [new AIMessage({ id: "m1", content: "hello" })] }))
      .addNode("again", (state) => ({ messages: [state.messages.at(-1)!] }))
      .addEdge(START, "say")
      .addEdge("say", "again")
      .addEdge("again", END)
      .compile();
    const chunks = (await collect(
      await graph.stream(
        { messages: [new HumanMessage({ id: "h", content: "hi" })] },
        { streamMode: "messages" },
      ),
    )) as Array<[BaseMessage, Record<string, unknown>]>;
    expect(chunks.map(([m, meta]) => [m.id, meta.langgraph_node])).toEqual([["m1", "say"]]);
  });

  it("streams a subgraph's model tokens; custom chunks with [mode, chunk] pairs", async () => {
    const model = new ScriptedChatModel([{ content: "deep answer" }]);
    const child = new StateGraph(MessagesAnnotation)
      .addNode("inner", async (state, config: RunConfig) => {
        config.writer?.({ progress: "calling the model" });
        return { messages: [await model.invoke(state.messages, config as never)] };
      })
      .addEdge(START, "inner")
      .addEdge("inner", END)
      .compile();
    const parent = new StateGraph(MessagesAnnotation)
      .addNode("child", child)
      .addEdge(START, "child")
      .addEdge("child", END)
      .compile();
    const chunks = (await collect(
      await parent.stream(
        { messages: [new HumanMessage("q")] },
        { streamMode: ["messages", "custom"] },
      ),
    )) as Array<[string, unknown]>;
    const custom = chunks.filter(([mode]) => mode === "custom").map(([, c]) => c);
    expect(custom).toEqual([{ progress: "calling the model" }]);
    const tokens = chunks
      .filter(([mode]) => mode === "messages")
      .map(([, c]) => (c as [BaseMessage, Record<string, unknown>])[0].content);
    expect(tokens.join("")).toBe("deep answer");
  });
});
