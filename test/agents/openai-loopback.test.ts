/**
 * The prebuilt agent driven by `@langchain/openai`'s ChatOpenAI against a real HTTP server on
 * loopback that speaks the chat-completions protocol (test/agents/support/openai-server.ts):
 * tool calls, streamed SSE tokens, HTTP errors, a 429 honoured by its `retry-after`, and an
 * endpoint that is down.
 */
import { type AIMessageChunk, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReactAgent } from "../../src/agents/index.js";
import { MemorySaver } from "../../src/index.js";
import { type OpenAIServer, startOpenAIServer, toolAnswers } from "./support/openai-server.js";
import { add } from "./support/tools.js";

const model = (baseURL: string, options: { streaming?: boolean } = {}) =>
  new ChatOpenAI({
    model: "loopback-model",
    apiKey: "test-key",
    temperature: 0,
    maxRetries: 0,
    configuration: { baseURL },
    ...options,
  });

describe("createReactAgent on ChatOpenAI against a loopback OpenAI-compatible server", () => {
  let server: OpenAIServer;
  let limited = false;
  beforeAll(async () => {
    // Asks for two parallel additions (one with arguments failing the schema), then answers.
    server = await startOpenAIServer((request) => {
      const last = request.messages.at(-1);
      if (typeof last?.content === "string" && last.content.includes("fail with 500"))
        return { status: 500, message: "the model crashed" };
      // Every other request asking to be rate limited is refused with a 429 first.
      if (typeof last?.content === "string" && last.content.includes("rate limit")) {
        limited = !limited;
        if (limited) return { status: 429, retryAfter: "0.1", message: "slow down" };
        return { content: "Not limited now." };
      }
      if (toolAnswers(request) === 0)
        return {
          content: "Adding. ",
          toolCalls: [
            { id: "call_1", name: "add", arguments: '{"a": 2, "b": 3}' },
            { id: "call_2", name: "add", arguments: '{"a": "two"}' },
          ],
        };
      return { content: "The sum is 5." };
    });
  });
  afterAll(() => server.close());

  it("calls the tools the model asks for over HTTP and answers; errors go back as ToolMessages", async () => {
    const agent = createReactAgent({
      llm: model(server.baseURL),
      tools: [add],
      prompt: "Be brief.",
      checkpointer: new MemorySaver(),
    });
    const before = server.requests.length;
    const result = await agent.invoke(
      { messages: [new HumanMessage("2+3?")] },
      { configurable: { thread_id: "http-1" } },
    );
    const messages = result.messages as BaseMessage[];
    expect(messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "ai"]);
    expect(messages[2]?.content).toBe("5");
    expect(messages[3]?.content).toContain("Error");
    expect(messages.at(-1)?.content).toBe("The sum is 5.");
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]?.authorization).toBe("Bearer test-key");
    expect(sent[0]?.body.model).toBe("loopback-model");
    expect(sent[0]?.body.tools?.map((t) => t.function.name)).toEqual(["add"]);
    expect(sent[0]?.body.messages[0]).toMatchObject({ role: "system", content: "Be brief." });
    // The second request carries the tool answers under their call ids.
    const toolTurns = sent[1]?.body.messages.filter((m) => m.role === "tool");
    expect(toolTurns?.map((m) => m.tool_call_id)).toEqual(["call_1", "call_2"]);
  });

  it('streams the model\'s SSE tokens with streamMode "messages"', async () => {
    const agent = createReactAgent({
      llm: model(server.baseURL, { streaming: true }),
      tools: [add],
    });
    const chunks: Array<[BaseMessage, Record<string, unknown>]> = [];
    for await (const chunk of await agent.stream(
      { messages: [new HumanMessage("2+3?")] },
      { streamMode: "messages" },
    ))
      chunks.push(chunk as [BaseMessage, Record<string, unknown>]);
    const fromAgent = chunks.filter(([, meta]) => meta.langgraph_node === "agent");
    const text = fromAgent.map(([m]) => m.content).join("");
    expect(text).toBe("Adding. The sum is 5.");
    // Token by token, not one message per answer.
    expect(fromAgent.length).toBeGreaterThan(6);
    expect(fromAgent.every(([m]) => m.constructor.name === "AIMessageChunk")).toBe(true);
    const callChunks = fromAgent.flatMap(([m]) => (m as AIMessageChunk).tool_call_chunks ?? []);
    expect(callChunks.filter((c) => c.name === "add").map((c) => c.id)).toEqual([
      "call_1",
      "call_2",
    ]);
    expect(fromAgent[0]?.[1]).toMatchObject({ langgraph_step: 1, ls_provider: "openai" });
    const tools = chunks.filter(([, meta]) => meta.langgraph_node === "tools");
    expect(tools.map(([m]) => m.getType())).toEqual(["tool", "tool"]);
  });

  it("an HTTP error of the endpoint fails the run with MODEL_ENDPOINT_FAILED naming the URL", async () => {
    const agent = createReactAgent({ llm: model(server.baseURL), tools: [add] });
    await expect(
      agent.invoke({ messages: [new HumanMessage("fail with 500")] }),
    ).rejects.toMatchObject({
      code: "MODEL_ENDPOINT_FAILED",
      message: expect.stringContaining(`${server.baseURL} answered HTTP 500`),
    });
  });

  it("a 429 is retried after its retry-after (the client's retries); without retries it is MODEL_ENDPOINT_FAILED", async () => {
    const before = server.requests.length;
    const patient = new ChatOpenAI({
      model: "loopback-model",
      apiKey: "test-key",
      maxRetries: 1,
      configuration: { baseURL: server.baseURL },
    });
    const result = await createReactAgent({ llm: patient, tools: [add] }).invoke({
      messages: [new HumanMessage("rate limit me")],
    });
    expect(result.messages.at(-1)?.content).toBe("Not limited now.");
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(90);
    const impatient = createReactAgent({ llm: model(server.baseURL), tools: [add] });
    await expect(
      impatient.invoke({ messages: [new HumanMessage("rate limit me")] }),
    ).rejects.toMatchObject({
      code: "MODEL_ENDPOINT_FAILED",
      message: expect.stringContaining(server.baseURL),
    });
  });

  it("an endpoint that is down fails with MODEL_ENDPOINT_FAILED naming the URL", async () => {
    const down = await startOpenAIServer(() => ({ content: "unused" }));
    const url = down.baseURL;
    await down.close();
    const agent = createReactAgent({ llm: model(url), tools: [add] });
    const error = await agent.invoke({ messages: [new HumanMessage("hi")] }).catch((e) => e);
    expect(error).toMatchObject({ code: "MODEL_ENDPOINT_FAILED" });
    expect(error.message).toContain(`The model endpoint ${url} could not be reached`);
    expect(error.hint).toContain("Start the model server");
  });
});
