/**
 * The IR's `llm` node kind on one database (run by llm-node.test.ts on SQLite and by
 * llm-node-postgres.int.test.ts on Postgres): `keel run` (in process) runs
 * examples/agent/agent.json's tool-calling agent against the loopback OpenAI-compatible server —
 * tools bound, a gated payment paused for approval and approved once by `keel approvals approve`,
 * bad calls answered to the model, the same ledger and audit as any governed tool call.
 */
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

/** The user's last message in a request. */
export function lastUser(request: ChatRequest): string {
  const user = request.messages.filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : "";
}

/** What the loopback model answers, by the user's request ("rate limited": every other time 429). */
let limited = false;
export function reply(request: ChatRequest) {
  const asked = lastUser(request);
  if (asked.includes("rate limited")) limited = !limited;
  if (asked.includes("rate limited") && limited)
    return { status: 429, retryAfter: "0.05", message: "slow down" };
  if (request.response_format !== undefined)
    return { content: JSON.stringify({ category: "billing", urgent: true }) };
  if (asked.includes("story")) return { content: "Once upon a time, tokens streamed." };
  if (asked.includes("Pay Bob") && toolAnswers(request) === 0)
    return {
      content: "",
      toolCalls: [
        { id: "call_b", name: "balance", arguments: "{}" },
        { id: "call_p", name: "pay", arguments: '{"to":"Bob","amount":50}' },
        { id: "call_x", name: "launch_rocket", arguments: "{}" },
        { id: "call_j", name: "pay", arguments: '{"to": "Bob", amount' },
        { id: "call_s", name: "pay", arguments: '{"to":5}' },
      ],
    };
  return { content: asked.includes("Pay Bob") ? "Paid Bob 50 euros." : "Hello." };
}

interface Waiting {
  kind: string;
  approval_id?: string;
  tool?: string;
}

export interface LlmNodeCaseOptions {
  name: string;
  available?: () => Promise<boolean>;
  /** A fresh database for the run (a file path or a URL) and how to drop it. */
  database(): Promise<{ db: string; drop(): Promise<void> }>;
}

export function runLlmNodeCase(options: LlmNodeCaseOptions): void {
  describe(`the IR llm node on ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    let server: OpenAIServer;
    let opened: { db: string; drop(): Promise<void> } | undefined;
    beforeAll(async () => {
      if (!available) return;
      server = await startOpenAIServer(reply);
      opened = await options.database();
    });
    afterAll(async () => {
      await server?.close();
      await opened?.drop();
    });
    // The CLI clears KEEL_* variables for each call: the endpoint and the key are given per call.
    const keel = (database: string, ...args: string[]) =>
      keelInProcess([...args, "--db", database, "--json"], {
        env: { KEEL_OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k-loopback" },
      });

    it.skipIf(!available)(
      "runs examples/agent/agent.json: tools bound, a gated payment approved once, bad calls answered",
      async () => {
        const database = opened?.db ?? "";
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
        const answers =
          server.requests.at(-1)?.body.messages.filter((m) => m.role === "tool") ?? [];
        expect(answers.map((m) => m.tool_call_id)).toEqual([
          "call_b",
          "call_p",
          "call_x",
          "call_s",
          // Arguments that are not JSON come last: the provider reports them apart.
          "call_j",
        ]);
        const text = answers.map((m) => String(m.content));
        expect(text[1]).toContain("paid-Bob-50");
        expect(text[2]).toContain("TOOL_FORBIDDEN");
        // Arguments failing the tool's input schema: refused before the gate, nothing paid.
        expect(text[3]).toContain("TOOL_INPUT_INVALID");
        expect(text[4]).toContain("not valid JSON");
        // One balance read and one payment on the ledger, though the node ran twice (pause, resume).
        const ledger = await keel(database, "ledger", "list", "--status", "succeeded");
        const calls = (ledger.json.calls as Array<{ toolCall: { tool_name: string } }>).map(
          (c) => c.toolCall.tool_name,
        );
        expect(calls.sort()).toEqual(["accounts.balance", "payments.pay"]);
        const audit = await keel(database, "audit", String(paused.json.trace_id));
        const types = (audit.json.events as Array<{ type: string }>).map((e) => e.type);
        expect(types.filter((t) => t === "tool_call.refused").length).toBeGreaterThanOrEqual(3);
      },
    );
  });
}
