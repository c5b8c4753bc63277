/**
 * Messages in state on a checkpointer: run by each saver's test file. A thread's messages come
 * back from the saver as instances of their LangChain classes, and an append-only message list
 * keeps the durable savers' delta storage.
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BaseCheckpointSaver } from "../../src/checkpoint/base/index.js";
import { END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";
import { type State as EditState, editGraph, editSteps, shape } from "./message-edits.js";

export interface MessagesCaseOptions {
  name: string;
  available?: () => Promise<boolean>;
  /** A saver, and how to open a second saver on the same storage (a restart). */
  newSaver(): Promise<{
    saver: BaseCheckpointSaver;
    reopen(): Promise<BaseCheckpointSaver>;
    cleanup(): Promise<void>;
    /** The stored encodings of a thread's values of a channel, in order (durable savers only). */
    encodings?(channel: string, threadId: string): Promise<string[]>;
  }>;
}

function agentGraph(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", (state) => {
      const last = state.messages.at(-1);
      if (last instanceof ToolMessage)
        return { messages: [new AIMessage(`done after ${state.messages.length}`)] };
      return {
        messages: [
          new AIMessage({
            content: "",
            tool_calls: [{ id: "call_1", name: "lookup", args: { q: "weather" } }],
          }),
        ],
      };
    })
    .addNode("tools", (state) => {
      const call = (state.messages.at(-1) as AIMessage).tool_calls?.[0];
      return {
        messages: [
          new ToolMessage({ content: "sunny", tool_call_id: call?.id ?? "", name: "lookup" }),
        ],
      };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) =>
      (state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END,
    )
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
}

export function runMessagesCase(options: MessagesCaseOptions): void {
  describe(`messages in state on ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    // One database for the file (creating a Postgres database costs seconds); threads differ.
    let opened: Awaited<ReturnType<MessagesCaseOptions["newSaver"]>>;
    beforeAll(async () => {
      if (available) opened = await options.newSaver();
    });
    afterAll(async () => {
      if (available) await opened.cleanup();
    });

    it.skipIf(!available)("restores messages as class instances after a restart", async () => {
      const { saver, reopen } = opened;
      const config = { configurable: { thread_id: "t-restore" } };
      const first = await agentGraph(saver).invoke(
        { messages: [new HumanMessage("what is the weather?")] },
        config,
      );
      expect(first.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);

      const graph = agentGraph(await reopen());
      const state = await graph.getState(config);
      const messages = state.values.messages as BaseMessage[];
      expect(messages[0]).toBeInstanceOf(HumanMessage);
      expect(messages[1]).toBeInstanceOf(AIMessage);
      expect((messages[1] as AIMessage).tool_calls).toEqual([
        { id: "call_1", name: "lookup", args: { q: "weather" } },
      ]);
      expect(messages[2]).toBeInstanceOf(ToolMessage);
      expect((messages[2] as ToolMessage).tool_call_id).toBe("call_1");
      // Ids given by the reducer survive the round trip.
      expect(messages.map((m) => m.id)).toEqual(first.messages.map((m) => m.id));

      // The resumed thread goes on: a new question is appended and answered.
      const second = await graph.invoke({ messages: [["user", "and tomorrow?"]] }, config);
      expect(second.messages.map((m) => m.getType())).toEqual([
        "human",
        "ai",
        "tool",
        "ai",
        "human",
        "ai",
        "tool",
        "ai",
      ]);
      expect(second.messages[4]).toBeInstanceOf(HumanMessage);
      expect(second.messages[7]?.content).toBe("done after 7");
    });

    it.skipIf(!available)("removes and replaces messages by id across checkpoints", async () => {
      const { saver, reopen } = opened;
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("edit", (state) => ({
          messages: [
            new RemoveMessage({ id: state.messages[0]!.id as string }),
            new AIMessage({ id: state.messages[1]!.id as string, content: "edited" }),
          ],
        }))
        .addEdge(START, "edit")
        .addEdge("edit", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "t-edit" } };
      await graph.invoke(
        {
          messages: [
            { role: "user", content: "a", id: "m1" },
            new AIMessage({ id: "m2", content: "b" }),
          ],
        },
        config,
      );
      const reopened = await (await reopen()).getTuple(config);
      const values = reopened?.checkpoint.channel_values.messages as BaseMessage[];
      expect(values.map((m) => [m.constructor.name, m.id, m.content])).toEqual([
        ["AIMessage", "m2", "edited"],
      ]);
    });

    it.skipIf(!available)("pending writes of a failed step come back as messages", async () => {
      const { saver, reopen } = opened;
      let fail = true;
      const build = (s: BaseCheckpointSaver) =>
        new StateGraph(MessagesAnnotation)
          .addNode("a", () => ({ messages: [new AIMessage({ id: "a1", content: "from a" })] }))
          .addNode("b", () => {
            if (fail) throw new Error("b failed");
            return { messages: [new AIMessage({ id: "b1", content: "from b" })] };
          })
          .addEdge(START, "a")
          .addEdge(START, "b")
          .addEdge("a", END)
          .addEdge("b", END)
          .compile({ checkpointer: s });
      const config = { configurable: { thread_id: "t-writes" } };
      await expect(build(saver).invoke({ messages: [] }, config)).rejects.toThrow("b failed");
      fail = false;
      const result = await build(await reopen()).invoke(null, config);
      expect(result.messages.map((m) => [m.constructor.name, m.content])).toEqual([
        ["AIMessage", "from a"],
        ["AIMessage", "from b"],
      ]);
    });

    it.skipIf(!available)("stores an append-only conversation as appends", async () => {
      const { saver, encodings } = opened;
      if (!encodings) return;
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("echo", (state) => ({
          messages: [new AIMessage(`echo ${state.messages.length}`)],
        }))
        .addEdge(START, "echo")
        .addEdge("echo", END)
        .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "t-append" } };
      for (let turn = 0; turn < 12; turn += 1)
        await graph.invoke({ messages: [new HumanMessage(`turn ${turn}`)] }, config);
      const stored = await encodings("messages", "t-append");
      expect(stored.filter((e) => e === "append").length).toBeGreaterThan(stored.length / 2);
    });

    it.skipIf(!available)(
      "a message changed in place between steps is saved changed (its cached text is not reused)",
      async () => {
        const { saver, reopen } = opened;
        // Each step changes, in place, a message an earlier step stored: its content, then a
        // nested tool-call argument.
        const graph = new StateGraph(MessagesAnnotation)
          .addNode("one", () => ({
            messages: [
              new AIMessage({
                id: "m1",
                content: "first",
                tool_calls: [{ id: "c1", name: "pay", args: { amount: 1 } }],
              }),
            ],
          }))
          .addNode("two", (state) => {
            (state.messages[1] as AIMessage).content = "edited";
            return { messages: [new AIMessage({ id: "m2", content: "second" })] };
          })
          .addNode("three", (state) => {
            const ai = state.messages[1] as AIMessage;
            (ai.tool_calls?.[0]?.args as { amount: number }).amount = 2;
            return { messages: [new AIMessage({ id: "m3", content: "third" })] };
          })
          .addEdge(START, "one")
          .addEdge("one", "two")
          .addEdge("two", "three")
          .addEdge("three", END)
          .compile({ checkpointer: saver });
        const config = { configurable: { thread_id: "t-in-place" } };
        await graph.invoke({ messages: [new HumanMessage({ id: "h", content: "go" })] }, config);
        const restored = (await (await reopen()).getTuple(config))?.checkpoint.channel_values
          .messages as BaseMessage[];
        const edited = restored[1] as AIMessage;
        expect(edited).toBeInstanceOf(AIMessage);
        expect(edited.content).toBe("edited");
        expect(edited.tool_calls?.[0]?.args).toEqual({ amount: 2 });
        expect(restored.map((m) => m.id)).toEqual(["h", "m1", "m2", "m3"]);
      },
    );

    it.skipIf(!available)(
      "a written message is saved with the id the state gives it (pending write and list agree)",
      async () => {
        const { saver, reopen } = opened;
        const graph = new StateGraph(MessagesAnnotation)
          .addNode("answer", () => ({ messages: [new AIMessage("no id given")] }))
          .addEdge(START, "answer")
          .addEdge("answer", END)
          .compile({ checkpointer: saver });
        const config = { configurable: { thread_id: "t-write-ids" } };
        const result = await graph.invoke({ messages: [new HumanMessage("hi")] }, config);
        const id = result.messages.at(-1)?.id;
        expect(typeof id).toBe("string");
        // The write was saved against the checkpoint the step ran from, with that same id.
        const reopened = await reopen();
        const history: Array<{ writes: unknown[] }> = [];
        for await (const tuple of reopened.list(config))
          history.push({ writes: tuple.pendingWrites ?? [] });
        const written = history
          .flatMap((h) => h.writes as Array<[string, string, unknown]>)
          .filter(([, channel]) => channel === "messages")
          .flatMap(([, , value]) => value as BaseMessage[]);
        expect(written.map((m) => [m.content, m.id])).toContainEqual(["no id given", id]);
        // A saver not Keel's own also holds START's write of the input: with the state's ids too.
        const stateIds = new Map(result.messages.map((m) => [m.content, m.id]));
        for (const message of written) expect(message.id).toBe(stateIds.get(message.content));
      },
    );

    it.skipIf(!available)(
      "stores each step's list as the next node sees it, whatever a node changed in place; appends as appends",
      async () => {
        const { saver, reopen, encodings } = opened;
        const { graph, seen, first } = editGraph(saver);
        // `sync`: each step's checkpoint saved before the next node runs. Without it a saver that
        // is not one of Keel's ordered ones (MemorySaver) gets a step's checkpoint while the next
        // step runs, as LangGraph.js's does, and serialises messages a node may be changing then.
        const config = { configurable: { thread_id: "t-edits" }, durability: "sync" as const };
        const final = (await graph.invoke({ messages: [first] }, config)) as EditState;
        seen.push(shape(final.messages));

        // Read back by a saver that has cached nothing.
        const fresh = await reopen();
        const stored = new Map<number, string>();
        for await (const tuple of fresh.list(config)) {
          const step = tuple.metadata?.step ?? -2;
          const messages = tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined;
          if (step >= 0 && messages) stored.set(step, shape(messages));
        }
        expect(stored.size).toBe(editSteps.length + 1);
        for (let step = 0; step <= editSteps.length; step++)
          expect(stored.get(step), `checkpoint of step ${step}`).toBe(seen[step]);

        // The list's value at each node's step: an append where only new messages were added.
        if (!encodings) return;
        const written = await encodings("messages", "t-edits");
        expect(written.slice(-editSteps.length)).toEqual(editSteps.map(([, encoding]) => encoding));
      },
    );
  });
}
