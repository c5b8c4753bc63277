/**
 * A tool-calling agent with one gated tool, on Keel's governed runtime.
 *
 *   KEEL_OPENAI_BASE_URL=http://127.0.0.1:8080/v1 KEEL_OPENAI_MODEL=qwen2.5 npx tsx examples/agent/agent.ts
 *
 * Any OpenAI-compatible chat-completions server works (llama.cpp's server, Ollama, vLLM, OpenAI);
 * the API key, if the server wants one, comes from OPENAI_API_KEY. Without KEEL_OPENAI_BASE_URL
 * the agent runs on a scripted model, so the example runs anywhere.
 *
 * The agent may read an account's balance (allowed) and pay someone (`external` effect: at
 * autonomy A2 and risk high, a person must approve). The run pauses on the approval; this script
 * approves it as "ana" and resumes the run; the payment happens once, and the audit trail shows
 * every stage (`npx keel audit <trace> --db <file>`).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createReactAgent, governedToolNode } from "../../src/agents/index.js";
import { GovernedRuntime, ToolRegistry } from "../../src/runtime/index.js";
import { openStore } from "../../src/store/index.js";

const payments: string[] = [];
const tools = new ToolRegistry();
const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
tools.register(
  {
    name: "pay",
    namespace: "payments",
    version: "1.0.0",
    description: "Pays an amount in euros to a person.",
    input_schema: object({ to: { type: "string" }, amount: { type: "number" } }, ["to", "amount"]),
    output_schema: object({ receipt: { type: "string" } }, ["receipt"]),
    side_effects: "external",
  },
  (input) => {
    const { to, amount } = input as { to: string; amount: number };
    payments.push(`${to}:${amount}`);
    return { receipt: `receipt-${payments.length}` };
  },
);
tools.register(
  {
    name: "balance",
    namespace: "accounts",
    version: "1.0.0",
    description: "Reads the account balance in euros.",
    input_schema: object({}, []),
    output_schema: object({ balance: { type: "number" } }, ["balance"]),
    side_effects: "read",
  },
  () => ({ balance: 120 }),
);

/** A model that calls the tools as a real one would, for runs without a server. */
function scriptedModel() {
  const model = new FakeListChatModel({ responses: ["Paid Bob 50 euros."] });
  let turn = 0;
  const answers = [
    new AIMessage({ content: "", tool_calls: [{ id: "call-balance", name: "balance", args: {} }] }),
    new AIMessage({
      content: "",
      tool_calls: [{ id: "call-pay", name: "pay", args: { to: "Bob", amount: 50 } }],
    }),
  ];
  model.invoke = (async (input: unknown, options?: unknown) =>
    turn < answers.length
      ? answers[turn++]
      : FakeListChatModel.prototype.invoke.call(model, input as never, options as never)) as never;
  model.bindTools = (() => model) as never;
  return model;
}

async function chatModel() {
  const baseURL = process.env.KEEL_OPENAI_BASE_URL;
  if (!baseURL) return scriptedModel();
  const { ChatOpenAI } = await import("@langchain/openai");
  return new ChatOpenAI({
    model: process.env.KEEL_OPENAI_MODEL ?? "gpt-4o-mini",
    temperature: 0,
    apiKey: process.env.OPENAI_API_KEY ?? "not-needed",
    configuration: { baseURL },
  });
}

const db = join(mkdtempSync(join(tmpdir(), "keel-agent-")), "keel.db");
const store = await openStore({ db, backupBeforeMigrate: false });
const runtime = new GovernedRuntime({ store, tools });
const agent = createReactAgent({
  llm: await chatModel(),
  tools: governedToolNode({ runtime, tools: ["payments.pay", "accounts.balance"] }),
  prompt: "You manage a small account. Check the balance before paying anyone.",
  checkpointer: runtime.checkpointer,
});

const started = await runtime.start({
  graph: agent,
  input: { messages: [new HumanMessage("Please pay Bob 50 euros.")] },
  autonomy: "A2",
  risk: "high",
});
console.log(`run ${started.run.id}: ${started.run.status}`);
for (const waiting of started.waitingFor) {
  console.log(`waiting for ${waiting.kind} ${waiting.approval_id}: ${waiting.how_to_continue}`);
  await runtime.approvals.approve(waiting.approval_id ?? "", {
    by: "ana",
    reason: "Bob's invoice checked",
    capabilities: ["approve:payments.pay"],
  });
}
const finished =
  started.waitingFor.length > 0 ? await runtime.resume(started.run.id, agent) : started;
const { messages } = finished.result as {
  messages: Array<{ getType(): string; content: unknown }>;
};
for (const message of messages)
  console.log(`${message.getType().padEnd(6)} ${JSON.stringify(message.content)}`);
console.log(`payments made: ${JSON.stringify(payments)}`);
console.log(`audit trail: npx keel audit ${started.task.trace_id} --db ${db}`);
await store.close();
