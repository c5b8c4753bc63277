/**
 * Token streaming through the governed agent (`governedToolNode` in `createReactAgent`) with a
 * scripted model that streams word by word: `runtime.start`/`resume` with a `stream` option,
 * `streamMode: "messages"` as `[chunk, metadata]`, across a gated call's pause, and from the
 * agent run as a subgraph of a parent graph.
 */
import {
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReactAgent, governedToolNode } from "../../src/agents/index.js";
import { Command, END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";
import { GovernedRuntime } from "../../src/runtime/index.js";
import { sqliteTestStore, type TestStore } from "../checkpoint/support/databases.js";
import { registry } from "./governed-agent.case.js";
import { ScriptedChatModel } from "./support/scripted-model.js";

type Streamed = [BaseMessage, Record<string, unknown>];

let opened: TestStore;
beforeAll(async () => {
  opened = await sqliteTestStore();
});
afterAll(async () => {
  await opened.cleanup();
});

function governedAgent() {
  const payments: string[] = [];
  const runtime = new GovernedRuntime({ store: opened.store, tools: registry(payments) });
  const model = new ScriptedChatModel([
    { content: "Reading the balance. ", tool_calls: [{ id: "c-b", name: "balance", args: {} }] },
    {
      content: "Paying bob. ",
      tool_calls: [{ id: "c-pay", name: "pay", args: { to: "bob", amount: 50 } }],
    },
    { content: "Paid bob 50." },
  ]);
  const tools = governedToolNode({ runtime, tools: ["payments.pay", "accounts.balance"] });
  const agent = createReactAgent({ llm: model, tools, checkpointer: runtime.checkpointer });
  return { runtime, agent, payments };
}

const APPROVE = new Command({
  resume: { decision: "approve", by: "ana", capabilities: ["approve:payments.pay"] },
});

/** [class, content, node] of each streamed message. */
const shown = (chunks: Streamed[]) =>
  chunks.map(([m, meta]) => [m.constructor.name, m.content, meta.langgraph_node]);

describe("a governed run streamed (runtime.start / resume with stream)", () => {
  it("yields the model's tokens and the governed tools' messages (\"messages\"), across a pause", async () => {
    const { runtime, agent, payments } = governedAgent();
    const chunks: Streamed[] = [];
    const started = await runtime.start({
      graph: agent,
      input: { messages: [new HumanMessage("pay bob 50")] },
      autonomy: "A2",
      risk: "high",
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void chunks.push(chunk) },
    });
    // The pause is read from the stream as from invoke: the gated payment waits for approval.
    expect(started.run.status).toBe("paused");
    expect(started.waitingFor).toMatchObject([{ kind: "approval", tool: "payments.pay" }]);
    expect(payments).toEqual([]);
    expect(shown(chunks)).toEqual([
      ["AIMessageChunk", "Reading ", "agent"],
      ["AIMessageChunk", "the ", "agent"],
      ["AIMessageChunk", "balance. ", "agent"],
      ["AIMessageChunk", "", "agent"],
      ["ToolMessage", '{"balance":120}', "tools"],
      ["AIMessageChunk", "Paying ", "agent"],
      ["AIMessageChunk", "bob. ", "agent"],
      ["AIMessageChunk", "", "agent"],
    ]);
    expect(chunks[0]?.[1]).toMatchObject({ langgraph_step: 1, langgraph_node: "agent" });
    expect((chunks[7]![0] as AIMessageChunk).tool_call_chunks?.[0]?.name).toBe("pay");

    const after: Streamed[] = [];
    const resumed = await runtime.resume(started.run.id, agent, APPROVE, {
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void after.push(chunk) },
    });
    expect(resumed.run.status).toBe("succeeded");
    expect(payments).toEqual(["bob:50"]);
    expect(shown(after)).toEqual([
      ["ToolMessage", '{"receipt":"r-1"}', "tools"],
      ["AIMessageChunk", "Paid ", "agent"],
      ["AIMessageChunk", "bob ", "agent"],
      ["AIMessageChunk", "50.", "agent"],
    ]);
    // The result is invoke's: the whole state.
    const messages = (resumed.result as { messages: BaseMessage[] }).messages;
    expect(messages.at(-1)?.content).toBe("Paid bob 50.");
    expect(messages.filter((m) => m instanceof ToolMessage)).toHaveLength(2);
  });

  it("with several modes hands [mode, chunk] pairs, only of the modes asked for", async () => {
    const { runtime, agent } = governedAgent();
    const chunks: Array<[string, unknown]> = [];
    const started = await runtime.start({
      graph: agent,
      input: { messages: [new HumanMessage("pay bob 50")] },
      autonomy: "A2",
      risk: "high",
      stream: {
        streamMode: ["updates", "messages"],
        onChunk: (chunk: [string, unknown]) => void chunks.push(chunk),
      },
    });
    expect(started.waitingFor).toHaveLength(1);
    expect(new Set(chunks.map(([mode]) => mode))).toEqual(new Set(["updates", "messages"]));
    const updates = chunks.filter(([mode]) => mode === "updates").map(([, u]) => u);
    expect(updates.map((u) => Object.keys(u as object)[0])).toEqual([
      "agent",
      "tools",
      "agent",
      "__interrupt__",
    ]);
  });

  it("streams the tokens of the governed agent run as a subgraph, with its namespace", async () => {
    const { runtime, agent, payments } = governedAgent();
    const parent = new StateGraph(MessagesAnnotation)
      .addNode("assistant", agent)
      .addEdge(START, "assistant")
      .addEdge("assistant", END)
      .compile({ checkpointer: runtime.checkpointer });
    const chunks: Streamed[] = [];
    const started = await runtime.start({
      graph: parent,
      input: { messages: [new HumanMessage("pay bob 50")] },
      autonomy: "A2",
      risk: "high",
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void chunks.push(chunk) },
    });
    expect(started.waitingFor).toMatchObject([{ kind: "approval", tool: "payments.pay" }]);
    expect(shown(chunks).slice(0, 5)).toEqual([
      ["AIMessageChunk", "Reading ", "agent"],
      ["AIMessageChunk", "the ", "agent"],
      ["AIMessageChunk", "balance. ", "agent"],
      ["AIMessageChunk", "", "agent"],
      ["ToolMessage", '{"balance":120}', "tools"],
    ]);
    // The subgraph's own tools node's message too, not only its model's tokens.
    expect(chunks[4]?.[1]).toMatchObject({ langgraph_node: "tools", langgraph_step: 2 });

    const after: Streamed[] = [];
    const resumed = await runtime.resume(started.run.id, parent, APPROVE, {
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void after.push(chunk) },
    });
    expect(resumed.run.status).toBe("succeeded");
    expect(payments).toEqual(["bob:50"]);
    expect(after.map(([m]) => m.content).join("")).toContain("Paid bob 50.");
  });

  it("a consumer that throws stops the run between steps: it fails with that error, nothing paid", async () => {
    const { runtime, agent, payments } = governedAgent();
    const failed = await runtime
      .start({
        graph: agent,
        input: { messages: [new HumanMessage("pay bob 50")] },
        autonomy: "A4",
        risk: "low",
        stream: {
          streamMode: "updates",
          onChunk: () => {
            throw new Error("the screen went away");
          },
        },
      })
      .catch((error: unknown) => error);
    expect((failed as Error).message).toContain("the screen went away");
    const [run] = await runtime.runs.list({ limit: 1 });
    expect(run?.status).toBe("failed");
    expect(payments).toEqual([]);
  });

  it("refuses a stream mode the engine does not have, before any tool runs", async () => {
    const { runtime, agent, payments } = governedAgent();
    await expect(
      runtime.start({
        graph: agent,
        input: { messages: [new HumanMessage("pay bob 50")] },
        autonomy: "A2",
        risk: "high",
        stream: { streamMode: "tokens" as never, onChunk: () => {} },
      }),
    ).rejects.toMatchObject({ code: "STREAM_MODE_UNKNOWN" });
    expect(payments).toEqual([]);
  });

  /** Starts the agent with a consumer that throws at the balance's tool message (the run fails). */
  async function failAtBalance(
    runtime: GovernedRuntime,
    agent: ReturnType<typeof governedAgent>["agent"],
    message = "the screen went away",
  ) {
    const before: Streamed[] = [];
    const error = await runtime
      .start({
        graph: agent,
        input: { messages: [new HumanMessage("pay bob 50")] },
        autonomy: "A2",
        risk: "high",
        stream: {
          streamMode: "messages",
          onChunk: (chunk: Streamed) => {
            before.push(chunk);
            if (chunk[0] instanceof ToolMessage) throw new Error("the screen went away");
          },
        },
      })
      .catch((thrown: unknown) => thrown);
    expect((error as Error).message).toContain(message);
    const [run] = await runtime.runs.list({ limit: 1 });
    return { run: run!, before };
  }

  it("retry streams the retried run from its last checkpoint (retry's stream option)", async () => {
    const { runtime, agent, payments } = governedAgent();
    const { run, before } = await failAtBalance(runtime, agent);
    expect(run.status).toBe("failed");
    expect(shown(before).at(-1)).toEqual(["ToolMessage", '{"balance":120}', "tools"]);

    const after: Streamed[] = [];
    const retried = await runtime.retry(run.id, agent, {
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void after.push(chunk) },
    });
    expect(retried.run.status).toBe("paused");
    expect(retried.waitingFor).toMatchObject([{ kind: "approval", tool: "payments.pay" }]);
    // From the checkpoint after the balance: the model's next answer, token by token.
    expect(shown(after)).toEqual([
      ["AIMessageChunk", "Paying ", "agent"],
      ["AIMessageChunk", "bob. ", "agent"],
      ["AIMessageChunk", "", "agent"],
    ]);
    expect(payments).toEqual([]);
  });

  it("recover streams the recovered run from its last checkpoint (recover's stream option)", async () => {
    const { runtime, agent, payments } = governedAgent();
    // A run left `running` as a crash leaves it: its `failed` status cannot be written.
    const database = (opened.store.native as { database: { exec(sql: string): void } }).database;
    database.exec(
      "CREATE TRIGGER tr_no_failed BEFORE INSERT ON state_audit_events WHEN NEW.type = 'task.failed' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;",
    );
    const { run } = await failAtBalance(runtime, agent, "could not be written").finally(() =>
      database.exec("DROP TRIGGER tr_no_failed;"),
    );
    expect(run.status).toBe("running");

    const after: Streamed[] = [];
    const recovered = await runtime.recover(run.id, agent, {
      stream: { streamMode: "messages", onChunk: (chunk: Streamed) => void after.push(chunk) },
    });
    expect(recovered.run.status).toBe("paused");
    expect(shown(after)).toEqual([
      ["AIMessageChunk", "Paying ", "agent"],
      ["AIMessageChunk", "bob. ", "agent"],
      ["AIMessageChunk", "", "agent"],
    ]);
    const resumed = await runtime.resume(run.id, agent, APPROVE);
    expect(resumed.run.status).toBe("succeeded");
    expect(payments).toEqual(["bob:50"]);
  });
});
