/**
 * The IR's `llm` node kind against the loopback OpenAI-compatible server: the agent document on
 * SQLite (llm-node.case.ts; Postgres in llm-node-postgres.int.test.ts), its tokens streamed with
 * `streamMode: "messages"`, structured output into named slots, a 429 with `retry-after`, an
 * endpoint that is down, and a config that holds a key.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AIMessageChunk } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { llmNodeKind } from "../../src/agents/index.js";
import { compileDocument } from "../../src/ir/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { lastUser, reply, runLlmNodeCase } from "./llm-node.case.js";
import { type OpenAIServer, startOpenAIServer } from "./support/openai-server.js";

const dir = mkdtempSync(join(tmpdir(), "keel-llm-node-"));

runLlmNodeCase({
  name: "SQLite",
  database: async () => {
    const folder = mkdtempSync(join(tmpdir(), "keel-llm-db-"));
    return {
      db: join(folder, "keel.db"),
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  },
});

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer(reply);
});
afterAll(() => server.close());

const db = () => join(mkdtempSync(join(tmpdir(), "keel-llm-db-")), "keel.db");
// The CLI clears KEEL_* variables for each call: the endpoint and the key are given per call.
const keel = (database: string, ...args: string[]) =>
  keelInProcess([...args, "--db", database, "--json"], {
    env: { KEEL_OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k-loopback" },
  });

describe("the IR llm node on LangChain's fake chat model", () => {
  it("asks the model the node's system and input, and writes its answer to the output slot", async () => {
    const fake = new FakeListChatModel({ responses: ["A fake answer."] });
    const seen: string[] = [];
    const { graph } = await compileDocument(
      {
        ir_version: "1.1.0",
        id: "graph:fake-llm",
        nodes: [
          {
            id: "ask",
            kind: "llm",
            config: { model: "m", system: "Be brief.", input: ["q", "who"], output: "a" },
          },
          { id: "done", kind: "halt" },
        ],
        rules: [],
        tools: [],
        state_schema: { q: "str", who: "str", a: "str?" },
      },
      {
        nodeKinds: {
          llm: llmNodeKind({
            chatModel: (options) => {
              seen.push(`${options.model} ${options.baseURL}`);
              return fake;
            },
            env: { KEEL_OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
          }),
        },
      },
    );
    const result = await graph.invoke({ q: "hello?", who: "ana" });
    expect(result).toMatchObject({ a: "A fake answer." });
    expect(seen).toEqual(["m http://127.0.0.1:9/v1"]);
  });
});

describe("the IR llm node, streamed", () => {
  it("streams the model's tokens with streamMode \"messages\", as a prebuilt agent's", async () => {
    const { graph } = await compileDocument(
      {
        ir_version: "1.1.0",
        id: "graph:stream-llm",
        nodes: [
          {
            id: "ask",
            kind: "llm",
            config: { base_url: server.baseURL, model: "m", input: "q", output: "a" },
          },
          { id: "done", kind: "halt" },
        ],
        rules: [],
        tools: [],
        state_schema: { q: "str", a: "str?" },
      },
      { nodeKinds: { llm: llmNodeKind() } },
    );
    const before = server.requests.length;
    const chunks: Array<[AIMessageChunk, Record<string, unknown>]> = [];
    for await (const chunk of await graph.stream(
      { q: "Tell me a story." },
      { streamMode: "messages" },
    ))
      chunks.push(chunk as [AIMessageChunk, Record<string, unknown>]);
    // The model was asked to stream, and its words came as they arrived, from the `ask` node.
    expect(server.requests[before]?.body.stream).toBe(true);
    const fromModel = chunks.filter(([, meta]) => meta.langgraph_node === "ask");
    expect(fromModel.length).toBeGreaterThan(2);
    expect(fromModel.map(([m]) => m.content).join("")).toBe("Once upon a time, tokens streamed.");
    expect(fromModel[0]?.[1]).toMatchObject({ langgraph_node: "ask", ls_provider: "openai" });
    const result = await graph.invoke({ q: "Tell me a story." });
    expect(result).toMatchObject({ a: "Once upon a time, tokens streamed." });
    // Invoked, the same node makes a plain request.
    expect(server.requests.at(-1)?.body.stream).toBeFalsy();
  });
});

describe("the IR llm node", () => {
  it("writes structured output into named slots, after a 429 honoured by its retry-after", async () => {
    const doc = join(dir, "triage.json");
    writeFileSync(
      doc,
      JSON.stringify({
        ir_version: "1.1.0",
        id: "graph:triage-llm",
        nodes: [
          {
            id: "classify",
            kind: "llm",
            config: {
              model: "small",
              input: ["ticket", "customer"],
              output: {
                category: { type: "string", enum: ["billing", "bug", "other"] },
                urgent: { type: "boolean" },
              },
            },
          },
          { id: "done", kind: "halt" },
        ],
        rules: [],
        tools: [],
        state_schema: { ticket: "str", customer: "str", category: "str?", urgent: "bool?" },
      }),
    );
    const before = server.requests.length;
    const run = await keel(
      db(),
      ...["run", doc, "--input", '{"ticket":"rate limited twice","customer":"c1"}'],
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.json.state).toMatchObject({ category: "billing", urgent: true });
    const sent = server.requests.slice(before);
    // 429, retried, answered; then the structured request (429 first again), retried, answered.
    expect(sent.length).toBe(4);
    expect(sent[0]?.authorization).toBe("Bearer not-needed");
    expect(lastUser(sent[0]!.body)).toBe("ticket: rate limited twice\ncustomer: c1");
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(45);
    expect(sent[3]?.body.response_format).toMatchObject({ type: "json_schema" });
  });

  it("names the URL when the endpoint is down, and refuses a key written in the document", async () => {
    const down = await startOpenAIServer(() => ({ content: "" }));
    const url = down.baseURL;
    await down.close();
    const doc = join(dir, "down.json");
    const node = (config: Record<string, unknown>) =>
      JSON.stringify({
        ir_version: "1.1.0",
        id: "graph:down",
        nodes: [
          { id: "ask", kind: "llm", config },
          { id: "done", kind: "halt" },
        ],
        rules: [],
        tools: [],
        state_schema: { q: "str", a: "str?" },
      });
    writeFileSync(
      doc,
      node({ base_url: url, model: "m", input: "q", output: "a", max_retries: 0 }),
    );
    const failed = await keel(db(), "run", doc, "--input", '{"q":"hi"}');
    expect(failed.stdout + failed.stderr).toContain(
      `The model endpoint ${url} could not be reached`,
    );
    expect(failed.stdout + failed.stderr).toContain("MODEL_ENDPOINT_FAILED");

    writeFileSync(doc, node({ model: "m", input: "q", output: "a", api_key: "sk-secret" }));
    const refused = await keel(db(), "run", doc, "--input", '{"q":"hi"}');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("api_key_env");
    expect(refused.stdout + refused.stderr).toContain("node_config_invalid");
  });
});
