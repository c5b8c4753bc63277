/** `streamMode: "tools"` and `streamEvents` v3's `tools` and `messages` channels. */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { z } from "zod/v3";
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' graphs, called the same way.
type Loose = Record<string, any>;

const concat = (a: string[], b: string[]) => a.concat(b);

const weather = tool(async ({ city }: { city: string }) => `sunny in ${city}`, {
  name: "weather",
  description: "The weather of a city.",
  schema: z.object({ city: z.string() }),
});

const broken = tool(
  async () => {
    throw new Error("station offline");
  },
  { name: "broken", description: "Always fails.", schema: z.object({}) },
);

/** A graph whose node calls a tool with its config (as a ToolNode does), then one that fails. */
function toolGraph(api: GraphApi, fail: boolean) {
  const State = api.Annotation.Root({
    log: api.Annotation({ reducer: concat, default: () => [] }),
  });
  return new api.StateGraph(State)
    .addNode("act", async (_state: unknown, config: Loose) => {
      const call = { id: "call_1", name: "weather", args: { city: "Oslo" }, type: "tool_call" };
      const answer = (await weather.invoke(call as never, config)) as { content: unknown };
      if (fail)
        await broken
          .invoke({ id: "call_2", name: "broken", args: {}, type: "tool_call" } as never, config)
          .catch(() => undefined);
      return { log: [String(answer.content)] };
    })
    .addEdge(api.START, "act")
    .compile() as unknown as Loose;
}

/** A tools chunk without the objects that differ by instance (the ToolMessage, the Error). */
function toolChunk(chunk: Loose): Loose {
  const { output, error, ...rest } = chunk;
  if (output !== undefined) rest.output = output.content ?? output;
  if (error !== undefined) rest.error = error.message;
  return rest;
}

/** A namespace without its task ids (they are random): `["act"]`. */
const names = (namespace: string[]) => namespace.map((segment) => segment.split(":")[0]);

export const issue13ToolsPrograms = {
  /** `streamMode: ["updates", "tools"]`: each tool's start and end (or error) before the update. */
  async toolsStreamMode(api: GraphApi) {
    const chunks: unknown[] = [];
    for await (const [mode, chunk] of await toolGraph(api, true).stream(
      { log: [] },
      { streamMode: ["updates", "tools"] },
    ))
      chunks.push([mode, mode === "tools" ? toolChunk(chunk) : chunk]);
    return chunks;
  },

  /** A subgraph's tools stream only with `subgraphs: true`, under the subgraph's namespace. */
  async toolsStreamModeInSubgraph(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const outer = new api.StateGraph(State)
      .addNode("sub", toolGraph(api, false) as never)
      .addEdge(api.START, "sub")
      .compile() as unknown as Loose;
    const flat: unknown[] = [];
    for await (const chunk of await outer.stream({ log: [] }, { streamMode: "tools" }))
      flat.push(chunk);
    const nested: unknown[] = [];
    for await (const [namespace, chunk] of await outer.stream(
      { log: [] },
      { streamMode: "tools", subgraphs: true },
    ))
      nested.push([names(namespace), toolChunk(chunk).event]);
    return { flat, nested };
  },

  /** streamEvents v3: the `tools` channel, under the namespace of the node that ran the tool. */
  async v3ToolsChannel(api: GraphApi) {
    const run = await toolGraph(api, true).streamEvents({ log: [] }, { version: "v3" });
    const events: unknown[] = [];
    for await (const event of run as AsyncIterable<Loose>) {
      if (event.method !== "tools") continue;
      const { output, ...data } = event.params.data;
      if (output !== undefined) data.output = output.content;
      events.push({ namespace: names(event.params.namespace), data });
    }
    return { events, output: await run.output };
  },

  /**
   * streamEvents v3: the `messages` channel carries a streaming model's content-block events
   * (`message-start`, deltas, `message-finish`) under the node's namespace, with the node's name.
   */
  async v3MessagesChannel(api: GraphApi) {
    const model = new FakeListChatModel({ responses: ["hi you"] });
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("talk", async (_state: unknown, config: Loose) => {
        const reply = await model.invoke("hello", config);
        return { log: [String(reply.content)] };
      })
      .addEdge(api.START, "talk")
      .compile() as unknown as Loose;
    const run = await graph.streamEvents({ log: [] }, { version: "v3" });
    const events: unknown[] = [];
    for await (const event of run as AsyncIterable<Loose>) {
      if (event.method !== "messages") continue;
      const { id, run_id, ...data } = event.params.data;
      events.push({
        namespace: names(event.params.namespace),
        node: event.params.node,
        data,
        ids: typeof run_id === "string" && (id === undefined || id === `run-${run_id}`),
      });
    }
    return { events, output: await run.output };
  },

  /** streamEvents v3: a message a node returns (no model streamed it) as the same events. */
  async v3MessagesFromNodeOutput(api: GraphApi) {
    const graph = new api.StateGraph((api as unknown as Loose).MessagesAnnotation)
      .addNode("reply", () => ({
        messages: [new AIMessage({ id: "m1", content: "done", usage_metadata: usage })],
      }))
      .addEdge(api.START, "reply")
      .compile() as unknown as Loose;
    const run = await graph.streamEvents({ messages: [] }, { version: "v3" });
    const events: unknown[] = [];
    for await (const event of run as AsyncIterable<Loose>)
      if (event.method === "messages") {
        const { run_id: _runId, ...data } = event.params.data;
        events.push({ namespace: names(event.params.namespace), node: event.params.node, data });
      }
    return events;
  },

  /**
   * A model and a tool a node calls without passing its config still stream (`messages`,
   * `tools`): the node runs in LangChain's context, which they read their config from.
   */
  async streamsWithoutConfig(api: GraphApi) {
    const model = new FakeListChatModel({ responses: ["ok"] });
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("talk", async () => {
        const reply = await model.invoke("hello");
        const call = { id: "call_9", name: "weather", args: { city: "Rome" }, type: "tool_call" };
        const answer = (await weather.invoke(call as never)) as { content: unknown };
        return { log: [String(reply.content), String(answer.content)] };
      })
      .addEdge(api.START, "talk")
      .compile() as unknown as Loose;
    const chunks: unknown[] = [];
    for await (const [mode, chunk] of await graph.stream(
      { log: [] },
      { streamMode: ["messages", "tools"] },
    ))
      chunks.push(
        mode === "messages"
          ? [mode, chunk[0].content, chunk[1].langgraph_node]
          : [mode, toolChunk(chunk)],
      );
    return chunks;
  },

  /** streamEvents v3: a subgraph node's message sits under the subgraph's task, then its own. */
  async v3MessagesInSubgraph(api: GraphApi) {
    const Messages = (api as unknown as Loose).MessagesAnnotation;
    const inner = new api.StateGraph(Messages)
      .addNode("reply", () => ({ messages: [new AIMessage({ id: "m2", content: "inner" })] }))
      .addEdge(api.START, "reply")
      .compile();
    const graph = new api.StateGraph(Messages)
      .addNode("sub", inner as never)
      .addEdge(api.START, "sub")
      .compile() as unknown as Loose;
    const run = await graph.streamEvents({ messages: [] }, { version: "v3" });
    const events: unknown[] = [];
    for await (const event of run as AsyncIterable<Loose>)
      if (event.method === "messages")
        events.push([names(event.params.namespace), event.params.data.event]);
    return events;
  },

  /**
   * A graph streamed (messages) inside a node of a graph streaming messages: the model's tokens go
   * to the outer stream only, the inner stream gets its node's returned message once.
   */
  async nestedMessagesStreamedOnce(api: GraphApi) {
    const Messages = (api as unknown as Loose).MessagesAnnotation;
    const model = new FakeListChatModel({ responses: ["hi you"] });
    const inner = new api.StateGraph(Messages)
      .addNode("agent", async () => {
        const parts: string[] = [];
        for await (const chunk of await model.stream("hello")) parts.push(String(chunk.content));
        return { messages: [new AIMessage(parts.join(""))] };
      })
      .addEdge(api.START, "agent")
      .compile() as unknown as Loose;
    const seen: unknown[] = [];
    const outer = new api.StateGraph(Messages)
      .addNode("delegate", async () => {
        for await (const [mode, chunk] of await inner.stream(
          { messages: [] },
          { streamMode: ["messages", "updates"] },
        ))
          if (mode === "messages") seen.push([chunk[0].getType(), chunk[0].content]);
        return {};
      })
      .addEdge(api.START, "delegate")
      .compile() as unknown as Loose;
    const outerTokens: string[] = [];
    for await (const [mode, chunk] of await outer.stream(
      { messages: [] },
      { streamMode: ["messages", "updates"] },
    ))
      if (mode === "messages" && chunk[0].constructor.name === "AIMessageChunk")
        outerTokens.push(chunk[0].content);
    return { inner: seen, outerTokens: outerTokens.join("") };
  },
};

const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };

/** A model that streams `text` a character a chunk, naming the message only in the first chunk. */
class FirstChunkNamedModel extends BaseChatModel {
  constructor(private readonly text: string) {
    super({});
  }
  _llmType(): string {
    return "first-chunk-named";
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = new AIMessage({ id: "reply-1", content: this.text });
    return { generations: [{ message, text: this.text }] };
  }
  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: unknown,
    runManager?: { handleLLMNewToken: (...args: never[]) => Promise<unknown> },
  ): AsyncGenerator<ChatGenerationChunk> {
    let first = true;
    for (const char of this.text) {
      const message = new AIMessageChunk(first ? { id: "reply-1", content: char } : char);
      const chunk = new ChatGenerationChunk({ message, text: char });
      await (runManager?.handleLLMNewToken as (...args: unknown[]) => Promise<unknown>)?.(
        char,
        undefined,
        undefined,
        undefined,
        undefined,
        { chunk },
      );
      yield chunk;
      first = false;
    }
  }
}

export const issue13MessageIdPrograms = {
  /**
   * `streamMode: "messages"`: chunks after a first one that names the message go out under that
   * id too (as a model such as Anthropic's streams), so the client sees one message.
   */
  async laterChunksTakeTheFirstChunksId(api: GraphApi) {
    const graph = new api.StateGraph((api as unknown as Loose).MessagesAnnotation)
      .addNode("talk", async () => {
        const reply = await new FirstChunkNamedModel("abc").invoke("hello");
        return { messages: [reply] };
      })
      .addEdge(api.START, "talk")
      .compile() as unknown as Loose;
    const seen: unknown[] = [];
    for await (const [message] of await graph.stream({ messages: [] }, { streamMode: "messages" }))
      seen.push([message.id, message.content]);
    return seen;
  },
};
