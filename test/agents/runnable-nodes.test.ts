import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { ToolNode as LangGraphToolNode } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";

describe("LangChain Runnables as nodes", () => {
  it("runs a RunnableLambda with the run's config (tags, metadata, callbacks, signal)", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const events: string[] = [];
    const node = RunnableLambda.from(
      (
        state: { messages: unknown[] },
        config?: { signal?: AbortSignal; metadata?: Record<string, unknown>; tags?: string[] },
      ) => {
        seen.push({
          signal: config?.signal,
          node: config?.metadata?.langgraph_node,
          tags: config?.tags,
        });
        return { messages: [new AIMessage(`saw ${state.messages.length}`)] };
      },
    );
    const controller = new AbortController();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("lambda", node)
      .addEdge(START, "lambda")
      .addEdge("lambda", END)
      .compile();
    const result = await graph.invoke(
      { messages: [new HumanMessage("hi")] },
      {
        signal: controller.signal,
        tags: ["t1"],
        callbacks: [{ handleChainStart: () => void events.push("chain-start") }],
      },
    );
    expect(result.messages.at(-1)?.content).toBe("saw 1");
    expect(seen[0]?.node).toBe("lambda");
    expect(seen[0]?.tags).toContain("t1");
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    // The Runnable reported its run to the callbacks the graph was invoked with.
    expect(events).toContain("chain-start");
  });

  it("runs LangGraph.js's own ToolNode", async () => {
    const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
      name: "add",
      description: "adds",
      schema: z.object({ a: z.number(), b: z.number() }),
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", new LangGraphToolNode([add]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile();
    const result = await graph.invoke({
      messages: [
        new AIMessage({
          content: "",
          tool_calls: [{ id: "c1", name: "add", args: { a: 2, b: 3 } }],
        }),
      ],
    });
    const last = result.messages.at(-1);
    expect(last).toBeInstanceOf(ToolMessage);
    expect(last?.content).toBe("5");
  });
});
