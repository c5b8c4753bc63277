import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "./support.js";

/** One record of the `events` stream mode (LangChain's streamEvents v2 shape). */
interface ChainEvent {
  event: string;
  name: string;
  run_id: string;
  parent_ids: string[];
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

/**
 * The LangGraph SDK's Client, unmodified, against `keel serve` on loopback: the same cases on
 * SQLite (sdk.int.test.ts) and Postgres (sdk-postgres.int.test.ts).
 */
export function sdkCases(
  dialect: string,
  start: () => Promise<TestServer & { cleanup?: () => Promise<void> }>,
  enabled = true,
): void {
  let t: TestServer & { cleanup?: () => Promise<void> };

  describe.skipIf(!enabled)(`the LangGraph SDK Client against keel serve on ${dialect}`, () => {
    beforeAll(async () => {
      t = await start();
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await t?.cleanup?.();
    });

    it("lists the config's assistants and draws a graph", async () => {
      const client = t.client();
      const assistants = await client.assistants.search();
      expect(assistants.map((a) => a.graph_id).sort()).toEqual([
        "agent",
        "chat",
        "nested",
        "noop",
        "slow",
      ]);
      const graph = await client.assistants.getGraph("agent");
      expect(graph.nodes.map((n) => n.id)).toEqual(
        expect.arrayContaining(["__start__", "model", "tools", "human", "__end__"]),
      );
      expect(graph.edges).toContainEqual({ source: "model", target: "tools", conditional: true });
    });

    it("streams a run in every mode, stops at an interrupt, resumes with a Command", async () => {
      const client = t.client();
      const thread = await client.threads.create({ metadata: { owner: "test" } });
      const events: Array<{ event: string; data: unknown }> = [];
      for await (const part of client.runs.stream(thread.thread_id, "agent", {
        input: { messages: [{ type: "human", content: "what is x?", id: "h1" }] },
        streamMode: ["values", "updates", "messages-tuple", "custom", "debug"],
      })) {
        events.push(part as { event: string; data: unknown });
      }
      const kinds = new Set(events.map((e) => e.event));
      for (const kind of ["metadata", "values", "updates", "messages", "custom", "debug"])
        expect(kinds).toContain(kind);
      const updates = events
        .filter((e) => e.event === "updates")
        .map((e) => Object.keys(e.data as object)[0]);
      expect(updates).toEqual(["model", "tools", "model", "__interrupt__"]);
      const tuple = events.find((e) => e.event === "messages")?.data as [
        { type: string },
        { langgraph_node: string },
      ];
      expect(tuple[1].langgraph_node).toBe("model");
      expect(events.find((e) => e.event === "custom")?.data).toEqual({
        progress: "thinking",
        turn: 1,
      });

      const paused = await client.threads.get(thread.thread_id);
      expect(paused.status).toBe("interrupted");
      const state = await client.threads.getState(thread.thread_id);
      expect(state.next).toEqual(["human"]);
      expect(state.tasks[0]?.interrupts[0]?.value).toEqual({ question: "send the answer?" });

      const final = (await client.runs.wait(thread.thread_id, "agent", {
        command: { resume: "yes" },
      })) as {
        approved: string;
        messages: Array<{ content: string }>;
      };
      expect(final.approved).toBe("yes");
      expect(final.messages.at(-1)?.content).toBe("the answer is 42");
      expect((await client.threads.get(thread.thread_id)).status).toBe("idle");

      const history = await client.threads.getHistory(thread.thread_id, { limit: 50 });
      expect(history.length).toBeGreaterThan(4);
      expect(history[0]?.checkpoint.checkpoint_id).toBe(
        (await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id,
      );

      const runs = await client.runs.list(thread.thread_id);
      expect(runs.map((r) => r.status)).toEqual(["success", "interrupted"]);
    });

    it("streams a chat model's tokens (messages-tuple and messages), tasks and checkpoints", async () => {
      const client = t.client();
      const thread = await client.threads.create();
      const events: Array<{ event: string; data: unknown }> = [];
      for await (const part of client.runs.stream(thread.thread_id, "chat", {
        input: { messages: [{ type: "human", content: "hi", id: "h1" }] },
        streamMode: ["messages-tuple", "messages", "tasks", "checkpoints"],
      })) {
        events.push(part as { event: string; data: unknown });
      }
      type Chunk = { type: string; content: string; id: string };
      const tuples = events
        .filter((e) => e.event === "messages")
        .map((e) => e.data as [Chunk, { langgraph_node: string }]);
      // One chunk per character as the fake model streams them, then nothing more for that message.
      expect(tuples.map(([chunk]) => chunk.content).join("")).toBe("hello there");
      expect(tuples.length).toBe("hello there".length);
      expect(tuples.every(([chunk]) => chunk.type === "AIMessageChunk")).toBe(true);
      expect(tuples[0]?.[1].langgraph_node).toBe("model");
      const partials = events.filter((e) => e.event === "messages/partial");
      expect((partials.at(-1)?.data as Chunk[] | undefined)?.[0]?.content).toBe("hello there");
      const complete = events.filter((e) => e.event === "messages/complete");
      expect(complete).toHaveLength(1);
      expect((complete[0]?.data as Chunk[] | undefined)?.[0]).toMatchObject({
        type: "ai",
        content: "hello there",
      });
      expect(events.filter((e) => e.event === "messages/metadata")).toHaveLength(1);

      const tasks = events
        .filter((e) => e.event === "tasks")
        .map((e) => e.data as { name: string; result?: unknown });
      expect(tasks.map((task) => task.name)).toEqual(["model", "model"]);
      expect(tasks[1]?.result).toBeDefined();
      const checkpoints = events
        .filter((e) => e.event === "checkpoints")
        .map(
          (e) => e.data as { next: string[]; config: { configurable: { checkpoint_id: string } } },
        );
      expect(checkpoints.map((c) => c.next)).toEqual([["__start__"], ["model"], []]);
      expect(checkpoints.at(-1)?.config.configurable.checkpoint_id).toBe(
        (await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id,
      );
      // Modes not asked for are not sent.
      expect(events.some((e) => e.event === "debug" || e.event === "values")).toBe(false);
    });

    it("streams the events mode: the graph's and each task's chain events, a chat model's tokens", async () => {
      const client = t.client();
      const thread = await client.threads.create();
      const events: ChainEvent[] = [];
      const names = new Set<string>();
      for await (const part of client.runs.stream(thread.thread_id, "chat", {
        input: { messages: [{ type: "human", content: "hi", id: "h1" }] },
        streamMode: ["events"],
      })) {
        names.add(part.event);
        if (part.event === "events") events.push(part.data as ChainEvent);
      }
      expect([...names].sort()).toEqual(["events", "metadata"]);
      const run = events[0];
      expect(run).toMatchObject({ event: "on_chain_start", name: "chat", parent_ids: [] });
      expect(events.at(-1)).toMatchObject({ event: "on_chain_end", run_id: run?.run_id });
      const model = events.filter((e) => e.name === "model");
      expect(model.map((e) => e.event)).toEqual(["on_chain_start", "on_chain_end"]);
      expect(model[0]?.parent_ids).toEqual([run?.run_id]);
      expect(model[0]?.metadata).toMatchObject({ langgraph_node: "model", langgraph_step: 1 });
      expect(model[1]?.run_id).toBe(model[0]?.run_id);
      const tokens = events.filter((e) => e.event === "on_chat_model_stream");
      expect(tokens.map((e) => (e.data.chunk as { content: string }).content).join("")).toBe(
        "hello there",
      );
      expect(tokens[0]?.parent_ids).toEqual([run?.run_id, model[0]?.run_id]);
      const output = events.at(-1)?.data.output as { messages: Array<{ content: string }> };
      expect(output.messages.at(-1)?.content).toBe("hello there");
    });

    it("streams a subgraph's events named with its namespace (streamSubgraphs)", async () => {
      const client = t.client();
      const thread = await client.threads.create();
      const events: Array<{ event: string; data: unknown }> = [];
      for await (const part of client.runs.stream(thread.thread_id, "nested", {
        input: { n: 0 },
        streamMode: ["updates", "values"],
        streamSubgraphs: true,
      })) {
        events.push(part as { event: string; data: unknown });
      }
      const inner = events.filter((e) => e.event.startsWith("updates|"));
      expect(inner.map((e) => Object.keys(e.data as object)[0])).toEqual(["one", "two"]);
      expect(inner[0]?.event).toMatch(/^updates\|inner:[^|]+$/);
      expect(
        events.filter((e) => e.event === "updates").map((e) => Object.keys(e.data as object)[0]),
      ).toEqual(["inner", "after"]);
      expect(events.filter((e) => e.event === "values").at(-1)?.data).toEqual({ n: 111 });
      // Without streamSubgraphs only the parent's events come.
      const plain: string[] = [];
      for await (const part of client.runs.stream(thread.thread_id, "nested", {
        input: { n: 0 },
        streamMode: ["updates"],
      })) {
        plain.push(part.event);
      }
      expect(plain.some((e) => e.includes("|"))).toBe(false);
    });

    it("updates state, forks from the past, copies, searches and deletes threads", async () => {
      const client = t.client();
      const thread = await client.threads.create({ metadata: { purpose: "fork" } });
      await client.runs.wait(thread.thread_id, "slow", { input: { n: 0 } });
      const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
      const early = history.find((s) => (s.values as { n: number }).n === 3);
      expect(early).toBeDefined();
      const fork = await client.threads.updateState(thread.thread_id, {
        values: { n: 100 },
        checkpointId: early?.checkpoint.checkpoint_id ?? "",
        asNode: "tick",
      });
      expect((await client.threads.getState(thread.thread_id)).values).toEqual({ n: 103 });
      const again = (await client.runs.wait(thread.thread_id, "slow", {
        input: null,
        checkpointId: fork.configurable?.checkpoint_id as string,
      })) as { n: number };
      expect(again.n).toBe(103);
      const copy = await client.threads.copy(thread.thread_id);
      expect((await client.threads.getState(copy.thread_id)).values).toEqual({ n: 103 });
      const found = await client.threads.search({ metadata: { purpose: "fork" } });
      expect(found.map((f) => f.thread_id).sort()).toEqual(
        [thread.thread_id, copy.thread_id].sort(),
      );
      await client.threads.delete(copy.thread_id);
      await expect(client.threads.get(copy.thread_id)).rejects.toThrow(/404/);
    });

    it("cancels a running run and joins it", async () => {
      const client = t.client();
      const thread = await client.threads.create();
      // Steps of a second: the cancel lands mid-run even when each request here takes long.
      const run = await client.runs.create(thread.thread_id, "slow", {
        input: { n: 0, stepMs: 1000 },
      });
      // Cancel once it has made a step (a loaded machine may take longer than a step to start it).
      for (let i = 0; i < 1500; i++) {
        const state = await client.threads.getState(thread.thread_id);
        if (((state.values as { n?: number }).n ?? 0) > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.runs.cancel(thread.thread_id, run.run_id, true);
      const after = await client.runs.get(thread.thread_id, run.run_id);
      expect(after.status).toBe("interrupted");
      expect((after as unknown as { keel_status: string }).keel_status).toBe("canceled");
      const n = ((await client.threads.getState(thread.thread_id)).values as { n: number }).n;
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(10);
      await client.runs.join(thread.thread_id, run.run_id);
    });

    it("refuses a second run on a busy thread and reports a failing run", async () => {
      const client = t.client();
      const thread = await client.threads.create();
      await client.runs.create(thread.thread_id, "slow", { input: { n: 0 } });
      await expect(
        client.runs.create(thread.thread_id, "slow", { input: { n: 0 } }),
      ).rejects.toThrow(/409/);
      await expect(client.runs.wait(thread.thread_id, "nope", { input: {} })).rejects.toThrow(
        /404/,
      );
    });

    it("runs stateless (no thread) with wait", async () => {
      const client = t.client();
      const out = (await client.runs.wait(null, "slow", { input: { n: 5 } })) as { n: number };
      expect(out.n).toBe(10);
    });
  });
}
