/**
 * The governed agent (`governedToolNode` in `createReactAgent`) on one dialect: gates, approvals
 * decided by the service or by `Command({ resume })`, bad calls answered as errors, the ledger's
 * rows; driven by a scripted model and by ChatOpenAI against the loopback OpenAI server.
 */
import { type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createReactAgent, governedToolNode } from "../../src/agents/index.js";
import { Command } from "../../src/index.js";
import { GovernedRuntime, searchAudit, ToolRegistry } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import type { TestStore } from "../checkpoint/support/databases.js";
import { startOpenAIServer, toolAnswers } from "./support/openai-server.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

/** The governed agent tests' tools: a payment (external, gated at A2 with risk high) and a read. */
export function registry(payments: string[]): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "pay",
      namespace: "payments",
      version: "1.0.0",
      description: "Pays someone.",
      input_schema: object({ to: { type: "string" }, amount: { type: "number" } }, [
        "to",
        "amount",
      ]),
      output_schema: object({ receipt: { type: "string" } }, ["receipt"]),
      side_effects: "external",
    },
    (input) => {
      const { to, amount } = input as { to: string; amount: number };
      payments.push(`${to}:${amount}`);
      return { receipt: `r-${payments.length}` };
    },
  );
  tools.register(
    {
      name: "balance",
      namespace: "accounts",
      version: "1.0.0",
      description: "Reads the balance.",
      input_schema: object({}, []),
      output_schema: object({ balance: { type: "number" } }, ["balance"]),
      side_effects: "read",
    },
    () => ({ balance: 120 }),
  );
  return tools;
}

/** The model asks for a read, a gated payment, and three calls that must not run. */
const SCRIPT = [
  {
    content: "",
    tool_calls: [
      { id: "c-balance", name: "balance", args: {} },
      { id: "c-pay", name: "pay", args: { to: "bob", amount: 50 } },
      { id: "c-unknown", name: "launch_rocket", args: {} },
      { id: "c-schema", name: "pay", args: { to: 5 } },
    ],
  },
  { content: "Paid bob 50." },
];

/** The ledger's rows of a run: [tool, status, tool call id]. */
async function ledgerRows(store: Store, runId: string): Promise<string[][]> {
  const rows = await store.kysely
    .selectFrom("state_tool_calls" as never)
    .select(["tool_name", "status", "idempotency_key"] as never)
    .where("task_id" as never, "=", runId as never)
    .execute();
  return (rows as Array<{ tool_name: string; status: string; idempotency_key: string }>)
    .map((c) => [c.tool_name, c.status, c.idempotency_key.split(":").at(-1) ?? ""])
    .sort();
}

export interface GovernedAgentCaseOptions {
  name: string;
  available?: () => Promise<boolean>;
  /** One store for the file (runs differ by id). */
  open(): Promise<TestStore>;
}

export function runGovernedAgentCase(options: GovernedAgentCaseOptions): void {
  describe(`governedToolNode in createReactAgent (${options.name})`, async () => {
    const available = options.available ? await options.available() : true;
    let opened: TestStore;
    beforeAll(async () => {
      if (available) opened = await options.open();
    });
    afterAll(async () => {
      if (available) await opened.cleanup();
    });
    const it = available ? test : test.skip;

    async function setup() {
      const payments: string[] = [];
      const runtime = new GovernedRuntime({ store: opened.store, tools: registry(payments) });
      const model = new ScriptedChatModel(SCRIPT);
      // The first answer also holds a call whose arguments were not JSON (as a provider reports it).
      const original = model._generate.bind(model);
      model._generate = async (messages) => {
        const result = await original(messages);
        if (model.seen.length === 1) {
          const message = result.generations[0]!.message as { invalid_tool_calls?: unknown[] };
          message.invalid_tool_calls = [
            {
              id: "c-json",
              name: "pay",
              args: '{"to": "bob", amount',
              error: "Unexpected end of JSON",
            },
          ];
        }
        return result;
      };
      const tools = governedToolNode({ runtime, tools: ["payments.pay", "accounts.balance"] });
      const agent = createReactAgent({ llm: model, tools, checkpointer: runtime.checkpointer });
      const start = () =>
        runtime.start({
          graph: agent,
          input: { messages: [new HumanMessage("pay bob 50")] },
          autonomy: "A2",
          risk: "high",
        });
      return { runtime, agent, model, payments, start, tools };
    }

    it("pauses a gated call for approval; approved, it runs once; bad calls come back as errors", async () => {
      const { runtime, agent, model, payments, start, tools } = await setup();
      expect(model.boundTools).toEqual(tools.definitions);
      const started = await start();
      expect(started.run.status).toBe("paused");
      const [waiting] = started.waitingFor;
      expect(waiting).toMatchObject({ kind: "approval", tool: "payments.pay" });
      expect(payments).toEqual([]);
      const approval = await runtime.approvals.get(waiting?.approval_id ?? "");
      expect(approval.what).toMatchObject({
        tool: "payments.pay",
        input: { to: "bob", amount: 50 },
      });

      await runtime.approvals.approve(approval.approval_id, {
        by: "ana",
        reason: "expected",
        capabilities: ["approve:payments.pay"],
      });
      const resumed = await runtime.resume(started.run.id, agent);
      expect(resumed.run.status).toBe("succeeded");
      expect(payments).toEqual(["bob:50"]);
      const messages = (resumed.result as { messages: ToolMessage[] }).messages;
      const answers = messages.filter((m) => m instanceof ToolMessage);
      expect(answers.map((m) => [m.tool_call_id, m.status])).toEqual([
        ["c-balance", "success"],
        ["c-pay", "success"],
        ["c-unknown", "error"],
        ["c-schema", "error"],
        ["c-json", "error"],
      ]);
      expect(answers[1]?.content).toBe('{"receipt":"r-1"}');
      expect(answers[2]?.content).toContain("TOOL_NOT_FOUND");
      expect(answers[3]?.content).toContain("TOOL_INPUT_INVALID");
      expect(answers[4]?.content).toContain("not valid JSON");
      expect(messages.at(-1)?.content).toBe("Paid bob 50.");

      // Each refusal is audited once, on the run's trace.
      const refused = (
        await searchAudit(runtime.store, { type: "tool_call.refused", limit: 500 })
      ).filter((e) => e.trace_id === started.task.trace_id);
      expect(refused.map((e) => /\((\w+)\)/.exec(e.summary)?.[1]).sort()).toEqual([
        "TOOL_INPUT_INVALID",
        "TOOL_INPUT_INVALID",
        "TOOL_NOT_FOUND",
      ]);
      expect(refused.every((e) => e.trace_id === started.task.trace_id)).toBe(true);
      // The ledger: one balance read, one payment, keyed by the tool-call ids.
      expect(await ledgerRows(runtime.store, started.run.id)).toEqual([
        ["accounts.balance", "succeeded", "c-balance"],
        ["payments.pay", "succeeded", "c-pay"],
      ]);
    });

    it("a denied call is told to the model and never runs", async () => {
      const { runtime, agent, payments, start } = await setup();
      const started = await start();
      await runtime.approvals.deny(started.waitingFor[0]?.approval_id ?? "", {
        by: "ana",
        reason: "not today",
        capabilities: ["approve:payments.pay"],
      });
      const resumed = await runtime.resume(started.run.id, agent);
      expect(resumed.run.status).toBe("succeeded");
      expect(payments).toEqual([]);
      const pay = (resumed.result as { messages: ToolMessage[] }).messages.find(
        (m) => m instanceof ToolMessage && m.tool_call_id === "c-pay",
      );
      expect(pay?.status).toBe("error");
      expect(pay?.content).toContain("APPROVAL_DENIED");
      expect(pay?.content).toContain("not today");
    });

    it("Command({ resume }) decides the pending approval (checked, audited) and continues", async () => {
      const { runtime, agent, payments, start } = await setup();
      const started = await start();
      const id = started.waitingFor[0]?.approval_id ?? "";
      // A resume value that is no decision, and a decider without the capability, are refused.
      await expect(
        runtime.resume(started.run.id, agent, new Command({ resume: "yes" })),
      ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      await expect(
        runtime.resume(
          started.run.id,
          agent,
          new Command({ resume: { decision: "approve", by: "bo", capabilities: [] } }),
        ),
      ).rejects.toMatchObject({ code: "CAPABILITY_MISSING" });
      expect(payments).toEqual([]);
      const resumed = await runtime.resume(
        started.run.id,
        agent,
        new Command({
          resume: {
            decision: "approve",
            by: "ana",
            reason: "known payee",
            capabilities: ["approve:payments.pay"],
          },
        }),
      );
      expect(resumed.run.status).toBe("succeeded");
      expect(payments).toEqual(["bob:50"]);
      const approval = await runtime.approvals.get(id);
      expect(approval).toMatchObject({
        status: "approved",
        decision: { by: "ana", reason: "known payee" },
      });
      // Resuming the finished run again is refused and pays nobody twice.
      await expect(runtime.resume(started.run.id, agent)).rejects.toMatchObject({
        code: "RUN_INVALID_TRANSITION",
      });
      expect(payments).toEqual(["bob:50"]);
    });

    /** The governed agent on ChatOpenAI against `server`; `options` go to ChatOpenAI. */
    function openAIAgent(baseURL: string, options: Record<string, unknown> = {}) {
      const payments: string[] = [];
      const runtime = new GovernedRuntime({ store: opened.store, tools: registry(payments) });
      const llm = new ChatOpenAI({
        model: "loopback-model",
        apiKey: "test-key",
        maxRetries: 0,
        configuration: { baseURL },
        ...options,
      });
      const tools = governedToolNode({ runtime, tools: ["payments.pay", "accounts.balance"] });
      const agent = createReactAgent({ llm, tools, checkpointer: runtime.checkpointer });
      const start = (request: string) =>
        runtime.start({
          graph: agent,
          input: { messages: [new HumanMessage(request)] },
          autonomy: "A2",
          risk: "high",
        });
      return { runtime, agent, payments, start };
    }

    it("a 429 is retried after its retry-after; without retries the run fails with MODEL_ENDPOINT_FAILED", async () => {
      // Every first request of a conversation is refused once with a 429.
      const refused = new Set<string>();
      const server = await startOpenAIServer((request) => {
        const asked = String(request.messages.find((m) => m.role === "user")?.content);
        if (toolAnswers(request) === 0 && !refused.has(asked)) {
          refused.add(asked);
          return { status: 429, retryAfter: "0.1", message: "slow down" };
        }
        return toolAnswers(request) === 0
          ? { toolCalls: [{ id: "call_bal", name: "balance", arguments: "{}" }] }
          : { content: "You have 120." };
      });
      try {
        const patient = openAIAgent(server.baseURL, { maxRetries: 1 });
        const done = await patient.start("my balance, patiently");
        expect(done.run.status).toBe("succeeded");
        expect((done.result as { messages: BaseMessage[] }).messages.at(-1)?.content).toBe(
          "You have 120.",
        );
        expect(server.requests).toHaveLength(3);
        const [first, second] = server.requests;
        expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(90);
        expect(await ledgerRows(patient.runtime.store, done.run.id)).toEqual([
          ["accounts.balance", "succeeded", "call_bal"],
        ]);

        const impatient = openAIAgent(server.baseURL);
        const failed = await impatient.start("my balance, now").catch((error: unknown) => error);
        expect(failed).toMatchObject({
          code: "MODEL_ENDPOINT_FAILED",
          message: expect.stringContaining(server.baseURL),
        });
      } finally {
        await server.close();
      }
    });

    it("an endpoint that is down fails the run with MODEL_ENDPOINT_FAILED naming the URL, nothing called", async () => {
      const down = await startOpenAIServer(() => ({ content: "unused" }));
      await down.close();
      const { runtime, payments, start } = openAIAgent(down.baseURL);
      const failed = await start("pay bob 50").catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: "MODEL_ENDPOINT_FAILED" });
      expect((failed as Error).message).toContain(
        `The model endpoint ${down.baseURL} could not be reached`,
      );
      expect(payments).toEqual([]);
      const runs = await runtime.runs.list({ limit: 1 });
      expect(runs[0]).toMatchObject({ status: "failed" });
      expect(await ledgerRows(runtime.store, runs[0]?.id ?? "")).toEqual([]);
    });

    it("streams ChatOpenAI's SSE tokens through a governed run (the runtime's stream option)", async () => {
      const server = await startOpenAIServer((request) =>
        toolAnswers(request) === 0
          ? {
              content: "Reading your balance. ",
              toolCalls: [{ id: "call_bal", name: "balance", arguments: "{}" }],
            }
          : { content: "You have 120 euros." },
      );
      try {
        const { runtime, agent } = openAIAgent(server.baseURL, { streaming: true });
        const chunks: Array<[BaseMessage, Record<string, unknown>]> = [];
        const done = await runtime.start({
          graph: agent,
          input: { messages: [new HumanMessage("my balance")] },
          autonomy: "A2",
          risk: "high",
          stream: {
            streamMode: "messages",
            onChunk: (chunk: [BaseMessage, Record<string, unknown>]) => void chunks.push(chunk),
          },
        });
        expect(done.run.status).toBe("succeeded");
        expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
        const fromAgent = chunks.filter(([, meta]) => meta.langgraph_node === "agent");
        // Word by word, as the server sent them.
        expect(fromAgent.map(([m]) => m.content).join("")).toBe(
          "Reading your balance. You have 120 euros.",
        );
        expect(fromAgent.length).toBeGreaterThan(6);
        const tools = chunks.filter(([, meta]) => meta.langgraph_node === "tools");
        expect(tools.map(([m]) => [m.getType(), m.content])).toEqual([["tool", '{"balance":120}']]);
        expect(await ledgerRows(runtime.store, done.run.id)).toEqual([
          ["accounts.balance", "succeeded", "call_bal"],
        ]);
      } finally {
        await server.close();
      }
    });

    it("drives ChatOpenAI over loopback HTTP: governed tools bound, a gated call denied by Command", async () => {
      const payments: string[] = [];
      const runtime = new GovernedRuntime({ store: opened.store, tools: registry(payments) });
      const server = await startOpenAIServer((request) =>
        toolAnswers(request) === 0
          ? {
              toolCalls: [
                { id: "call_bal", name: "balance", arguments: "{}" },
                { id: "call_pay", name: "pay", arguments: '{"to":"bob","amount":50}' },
                { id: "call_bad", name: "pay", arguments: '{"to": "bob", amount' },
              ],
            }
          : { content: "I could not pay bob." },
      );
      try {
        const llm = new ChatOpenAI({
          model: "loopback-model",
          apiKey: "test-key",
          maxRetries: 0,
          configuration: { baseURL: server.baseURL },
        });
        const tools = governedToolNode({ runtime, tools: ["payments.pay", "accounts.balance"] });
        const agent = createReactAgent({ llm, tools, checkpointer: runtime.checkpointer });
        const started = await runtime.start({
          graph: agent,
          input: { messages: [new HumanMessage("pay bob 50")] },
          autonomy: "A2",
          risk: "high",
        });
        expect(started.waitingFor[0]).toMatchObject({ kind: "approval", tool: "payments.pay" });
        const sentTools = server.requests[0]?.body.tools?.map((t) => t.function.name);
        expect(sentTools).toEqual(["pay", "balance"]);
        const resumed = await runtime.resume(
          started.run.id,
          agent,
          new Command({
            resume: {
              decision: "deny",
              by: "ana",
              reason: "over budget",
              capabilities: ["approve:payments.pay"],
            },
          }),
        );
        expect(resumed.run.status).toBe("succeeded");
        expect(payments).toEqual([]);
        const messages = (resumed.result as { messages: BaseMessage[] }).messages;
        const answers = messages.filter((m): m is ToolMessage => m instanceof ToolMessage);
        expect(answers.map((m) => [m.tool_call_id, m.status])).toEqual([
          ["call_bal", "success"],
          ["call_pay", "error"],
          ["call_bad", "error"],
        ]);
        expect(answers[1]?.content).toContain("over budget");
        // The model heard the denial: the second request carries the error ToolMessages.
        const second = server.requests.at(-1)?.body.messages.filter((m) => m.role === "tool");
        expect(second?.map((m) => m.tool_call_id)).toEqual(["call_bal", "call_pay", "call_bad"]);
        expect(messages.at(-1)?.content).toBe("I could not pay bob.");
        expect(await ledgerRows(runtime.store, started.run.id)).toEqual([
          ["accounts.balance", "succeeded", "call_bal"],
        ]);
      } finally {
        await server.close();
      }
    });
  });
}
