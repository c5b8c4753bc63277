import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { type ToolRuntime, tool } from "@langchain/core/tools";
import * as langgraph from "@langchain/langgraph";
import { createReactAgent as langgraphReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createReactAgent, ToolNode, toolsCondition } from "../../src/agents/index.js";
import { MemorySaver } from "../../src/checkpoint/base/index.js";
import {
  Annotation,
  Command,
  END,
  isKeelError,
  MessagesAnnotation,
  START,
  StateGraph,
} from "../../src/index.js";
import { type ScriptEntry, ScriptedChatModel } from "./support/scripted-model.js";
import { add } from "./support/tools.js";

const explode = tool(
  (): string => {
    throw new Error("the warehouse is closed");
  },
  { name: "explode", description: "Always fails.", schema: z.object({}) },
);

const SCRIPT: ScriptEntry[] = [
  {
    content: "",
    tool_calls: [
      { id: "c1", name: "add", args: { a: 2, b: 3 } },
      { id: "c2", name: "explode", args: {} },
      { id: "c3", name: "missing_tool", args: { x: 1 } },
      { id: "c4", name: "add", args: { a: "two" } },
    ],
  },
  { content: "", tool_calls: [{ id: "c5", name: "add", args: { a: 5, b: 5 } }] },
  { content: "The answer is 10." },
];

/** What parity compares: everything but the ids the reducer makes up. */
function comparable(messages: BaseMessage[]) {
  return messages.map((m) => ({
    type: m.getType(),
    content: m.content,
    name: m.name,
    tool_calls: (m as AIMessage).tool_calls?.map(({ id, name, args }) => ({ id, name, args })),
    tool_call_id: (m as ToolMessage).tool_call_id,
    status: (m as ToolMessage).status,
  }));
}

describe("createReactAgent", () => {
  it("ends with the same messages as LangGraph.js's, with the same fake model", async () => {
    const input = { messages: [new HumanMessage("add things")] };
    const keel = await createReactAgent({
      llm: new ScriptedChatModel(SCRIPT),
      tools: [add, explode],
      prompt: "You add numbers.",
    }).invoke(input);
    const theirs = await langgraphReactAgent({
      llm: new ScriptedChatModel(SCRIPT),
      tools: [add, explode],
      prompt: "You add numbers.",
    }).invoke({ messages: [new HumanMessage("add things")] });
    expect(comparable(keel.messages)).toEqual(comparable(theirs.messages));
    // Parallel calls each answered; errors go back to the model as ToolMessages.
    const tools = keel.messages.filter((m): m is ToolMessage => m instanceof ToolMessage);
    expect(tools.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["c1", "success"],
      ["c2", "error"],
      ["c3", "error"],
      ["c4", "error"],
      ["c5", "success"],
    ]);
    expect(tools[1]?.content).toContain("the warehouse is closed");
    expect(tools[2]?.content).toContain('Tool "missing_tool" not found.');
    expect(keel.messages.at(-1)?.content).toBe("The answer is 10.");
  });

  it("runs preModelHook and postModelHook as LangGraph.js does (same messages, same model input)", async () => {
    // The pre-hook trims what the model sees to the last message (llmInputMessages, not kept) and
    // counts its runs; the post-hook tags each AI answer.
    const build = (
      create: typeof createReactAgent | typeof langgraphReactAgent,
      lib: { Annotation: typeof Annotation; MessagesAnnotation: typeof MessagesAnnotation },
    ) => {
      const llm = new ScriptedChatModel(SCRIPT);
      const agent = (create as typeof createReactAgent)({
        llm,
        tools: [add, explode],
        stateSchema: lib.Annotation.Root({
          ...lib.MessagesAnnotation.spec,
          hooked: lib.Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
        }),
        preModelHook: (state) => ({ llmInputMessages: state.messages.slice(-1), hooked: 1 }),
        postModelHook: (state) => {
          const last = state.messages.at(-1) as AIMessage;
          return {
            messages: [new AIMessage({ ...last, id: last.id, content: `${last.content}!` })],
          };
        },
      });
      return { llm, agent };
    };
    const keel = build(createReactAgent, { Annotation, MessagesAnnotation });
    const theirs = build(langgraphReactAgent, langgraph as never);
    const input = () => ({ messages: [new HumanMessage("add things")] });
    const ours = (await keel.agent.invoke(input())) as { messages: BaseMessage[]; hooked: number };
    const peer = (await theirs.agent.invoke(input())) as {
      messages: BaseMessage[];
      hooked: number;
    };
    expect(comparable(ours.messages)).toEqual(comparable(peer.messages));
    expect(ours.hooked).toBe(3);
    expect(peer.hooked).toBe(3);
    expect(ours.messages.at(-1)?.content).toBe("The answer is 10.!");
    expect("llmInputMessages" in ours).toBe(false);
    // The model saw only what the pre-hook gave it.
    expect(keel.llm.seen.map((m) => m.length)).toEqual(theirs.llm.seen.map((m) => m.length));
    expect(keel.llm.seen.map((m) => m.length)).toEqual([1, 1, 1]);
  });

  it("puts the prompt first and binds the tools", async () => {
    const model = new ScriptedChatModel([{ content: "hi" }]);
    await createReactAgent({ llm: model, tools: [add], prompt: "Be brief." }).invoke({
      messages: [new HumanMessage("hello")],
    });
    expect(model.seen[0]?.map((m) => [m.getType(), m.content])).toEqual([
      ["system", "Be brief."],
      ["human", "hello"],
    ]);
    expect(model.boundTools).toEqual([add]);
  });

  it("pauses before tools with a checkpointer and continues", async () => {
    const agent = createReactAgent({
      llm: new ScriptedChatModel(SCRIPT.slice(1)),
      tools: [add],
      checkpointer: new MemorySaver(),
      interruptBefore: ["tools"],
    });
    const config = { configurable: { thread_id: "pause" } };
    await agent.invoke({ messages: [new HumanMessage("5+5?")] }, config);
    const paused = await agent.getState(config);
    expect(paused.next).toEqual(["tools"]);
    const done = await agent.invoke(null, config);
    expect(done.messages.at(-1)?.content).toBe("The answer is 10.");
  });

  it("gives a structured response with responseFormat", async () => {
    const schema = z.object({ total: z.number() });
    const model = new ScriptedChatModel([
      { content: "10" },
      { content: "", tool_calls: [{ id: "s1", name: "extract", args: { total: 10 } }] },
    ]);
    const result = await createReactAgent({ llm: model, tools: [], responseFormat: schema }).invoke(
      {
        messages: [new HumanMessage("5+5?")],
      },
    );
    expect(result.structuredResponse).toEqual({ total: 10 });
  });

  it("v2 sends one tools task per call", async () => {
    const result = await createReactAgent({
      llm: new ScriptedChatModel(SCRIPT),
      tools: [add, explode],
      version: "v2",
    }).invoke({ messages: [new HumanMessage("go")] });
    expect(result.messages.filter((m) => m instanceof ToolMessage)).toHaveLength(5);
  });

  it("refuses a state schema without messages", () => {
    let caught: unknown;
    try {
      createReactAgent({
        llm: new ScriptedChatModel([]),
        tools: [],
        stateSchema: Annotation.Root({ notes: Annotation<string>() }),
      });
    } catch (error) {
      caught = error;
    }
    expect(isKeelError(caught) && caught.code).toBe("INVALID_ARGUMENT");
  });
});

describe("ToolNode and toolsCondition", () => {
  it("route and run tools in a hand-built graph; a tool's Command passes through", async () => {
    const handoff = tool(
      (_input: Record<string, never>, config: { toolCall?: { id?: string } }) =>
        new Command({
          update: {
            messages: [
              new ToolMessage({ content: "handed off", tool_call_id: config.toolCall?.id ?? "" }),
            ],
          },
        }),
      { name: "handoff", description: "hands off", schema: z.object({}) },
    );
    const model = new ScriptedChatModel([
      { content: "", tool_calls: [{ id: "h1", name: "handoff", args: {} }] },
      { content: "done" },
    ]);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode("tools", new ToolNode([handoff]))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", toolsCondition, ["tools", END])
      .addEdge("tools", "agent")
      .compile();
    const result = await graph.invoke({ messages: [new HumanMessage("go")] });
    expect(result.messages.map((m) => [m.getType(), m.content])).toEqual([
      ["human", "go"],
      ["ai", ""],
      ["tool", "handed off"],
      ["ai", "done"],
    ]);
  });

  it("rethrows tool errors when handleToolErrors is false", async () => {
    const node = new ToolNode([explode], { handleToolErrors: false });
    await expect(
      node.invoke({
        messages: [
          new AIMessage({ content: "", tool_calls: [{ id: "x", name: "explode", args: {} }] }),
        ],
      }),
    ).rejects.toThrow("the warehouse is closed");
  });

  it("gives a tool LangGraph's ToolRuntime: config, state, call id; concurrent threads stay apart", async () => {
    const State = Annotation.Root({
      messages: Annotation<BaseMessage[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      customer: Annotation<string>(),
    });
    const record = tool(
      ({ name }: { name: string }, runtime: ToolRuntime<{ customer: string }>) =>
        `${name}:thread=${runtime.config?.configurable?.thread_id}:state=${runtime.state?.customer}:call=${runtime.toolCallId}`,
      { name: "record", description: "Records a name.", schema: z.object({ name: z.string() }) },
    );
    const graph = new StateGraph(State)
      .addNode("agent", async (state: { customer: string }) => {
        // Each thread's model call waits a different time, so the runs interleave.
        await new Promise((resolve) => setTimeout(resolve, state.customer.length));
        return {
          messages: [
            new AIMessage({
              content: "",
              tool_calls: [
                { id: `call-${state.customer}`, name: "record", args: { name: state.customer } },
              ],
            }),
          ],
        };
      })
      .addNode("tools", new ToolNode([record]))
      .addEdge(START, "agent")
      .addEdge("agent", "tools")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const customers = ["a", "bb", "ccc", "dddd"];
    const results = await Promise.all(
      customers.map((customer) =>
        graph.invoke(
          { customer, messages: [new HumanMessage("hi")] },
          { configurable: { thread_id: `thread-${customer}` } },
        ),
      ),
    );
    expect(results.map((r) => r.messages.at(-1)?.content)).toEqual(
      customers.map((c) => `${c}:thread=thread-${c}:state=${c}:call=call-${c}`),
    );
  });
});
