/**
 * The IR's `llm` node kind, run by `keel run` (in process) against the loopback OpenAI-compatible
 * server: examples/agent/agent.json's tool-calling agent with a gated payment (the same ledger,
 * gates and approvals as any governed tool call), structured output into named slots, a 429
 * with `retry-after`, an endpoint that is down, and a config that holds a key.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../store/cli-in-process.js";
import {
  type ChatRequest,
  type OpenAIServer,
  startOpenAIServer,
  toolAnswers,
} from "./support/openai-server.js";

const root = new URL("../../", import.meta.url).pathname;
const agentDoc = join(root, "examples/agent/agent.json");
const tools = join(root, "examples/agent/tools.mjs");
const dir = mkdtempSync(join(tmpdir(), "keel-llm-node-"));

function lastUser(request: ChatRequest): string {
  const user = request.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
}

/** What the loopback model answers, by the user's request ("rate limited": every other time 429). */
let limited = false;
function reply(request: ChatRequest) {
  const asked = lastUser(request);
  if (asked.includes("rate limited")) limited = !limited;
  if (asked.includes("rate limited") && limited)
    return { status: 429, retryAfter: "0.05", message: "slow down" };
  if (request.response_format !== undefined)
    return { content: JSON.stringify({ category: "billing", urgent: true }) };
  if (asked.includes("Pay Bob") && toolAnswers(request) === 0)
    return {
      content: "",
      toolCalls: [
        { id: "call_b", name: "balance", arguments: "{}" },
        { id: "call_p", name: "pay", arguments: '{"to":"Bob","amount":50}' },
        { id: "call_x", name: "launch_rocket", arguments: "{}" },
        { id: "call_j", name: "pay", arguments: '{"to": "Bob", amount' },
      ],
    };
  return { content: asked.includes("Pay Bob") ? "Paid Bob 50 euros." : "Hello." };
}

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

interface Waiting {
  kind: string;
  approval_id?: string;
  tool?: string;
}

describe("the IR llm node", () => {
  it("runs examples/agent/agent.json: tools bound, a gated payment approved once, bad calls answered", async () => {
    const database = db();
    const before = server.requests.length;
    const paused = await keel(
      database,
      ...["run", agentDoc, "--kinds", tools, "--input", '{"request":"Pay Bob 50 euros."}'],
    );
    expect(paused.exitCode, paused.stdout + paused.stderr).toBe(0);
    expect(paused.json.status).toBe("interrupted");
    const [waiting] = paused.json.waiting_for as Waiting[];
    expect(waiting).toMatchObject({ kind: "approval", tool: "payments.pay" });
    const first = server.requests[before];
    expect(first?.authorization).toBe("Bearer k-loopback");
    expect(first?.body).toMatchObject({ model: "qwen2.5:7b-instruct", temperature: 0 });
    expect(first?.body.tools?.map((t) => t.function.name)).toEqual(["balance", "pay"]);
    expect(first?.body.messages.map((m) => m.role)).toEqual(["system", "user"]);

    const approved = await keel(
      database,
      ...[
        "approvals",
        "approve",
        waiting?.approval_id ?? "",
        "--capability",
        "approve:payments.pay",
      ],
    );
    expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0);
    expect(approved.json.run).toMatchObject({ continued: true, status: "succeeded" });
    const shown = await keel(database, "runs", "show", String(paused.json.thread_id));
    expect((shown.json.state as { values: unknown }).values).toMatchObject({
      answer: "Paid Bob 50 euros.",
    });

    // The last request carried every call's answer: the effects, and the refusals as errors.
    const answers = server.requests.at(-1)?.body.messages.filter((m) => m.role === "tool") ?? [];
    expect(answers.map((m) => m.tool_call_id)).toEqual(["call_b", "call_p", "call_x", "call_j"]);
    const text = answers.map((m) => String(m.content));
    expect(text[1]).toContain("paid-Bob-50");
    expect(text[2]).toContain("TOOL_FORBIDDEN");
    expect(text[3]).toContain("not valid JSON");
    // One balance read and one payment on the ledger, though the node ran twice (pause, resume).
    const ledger = await keel(database, "ledger", "list", "--status", "succeeded");
    const calls = (ledger.json.calls as Array<{ toolCall: { tool_name: string } }>).map(
      (c) => c.toolCall.tool_name,
    );
    expect(calls.sort()).toEqual(["accounts.balance", "payments.pay"]);
    const audit = await keel(database, "audit", String(paused.json.trace_id));
    const types = (audit.json.events as Array<{ type: string }>).map((e) => e.type);
    expect(types.filter((t) => t === "tool_call.refused").length).toBeGreaterThanOrEqual(2);
  });

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
