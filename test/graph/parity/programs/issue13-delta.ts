/** LangGraph.js's `DeltaChannel` and `messagesDeltaReducer`, alone and as a graph's state key. */
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import type { GraphApi } from "../api.js";
import { outcome } from "../harness.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

const listReducer = (state: number[], writes: number[][]): number[] => {
  const out = [...state];
  for (const write of writes) out.push(...write);
  return out;
};

const errorOf = async (api: GraphApi, run: () => unknown): Promise<unknown> => {
  const result = (await outcome(api, async () => run())) as { error?: unknown };
  return result.error === undefined ? "no error" : "threw";
};

export const issue13DeltaPrograms = {
  /** The channel alone: batches, Overwrite winning its step, replay, restore, equality. */
  async deltaChannel(api: GraphApi) {
    const { DeltaChannel, DeltaSnapshot, isDeltaSnapshot, exitDeltaTaskId } = lib(api);
    const fresh = new DeltaChannel(listReducer);
    const available = fresh.isAvailable();
    fresh.update([[1, 2], [3]]);
    const afterUpdate = fresh.get();
    const emptyChanged = fresh.update([]);
    const overwritten = new DeltaChannel(listReducer).fromCheckpoint([100]);
    overwritten.update([[1], { __overwrite__: [50] }, [4]]);
    const replayed = new DeltaChannel(listReducer).fromCheckpoint([100]);
    replayed.replayWrites([
      ["t1", "k", [1]],
      ["t2", "k", { __overwrite__: [50] }],
      ["t3", "k", [4]],
    ]);
    const spec = new DeltaChannel(listReducer, { snapshotFrequency: 5 });
    return {
      available,
      afterUpdate,
      emptyChanged,
      checkpoint: fresh.checkpoint() ?? "undefined",
      overwritten: overwritten.get(),
      twoOverwrites: await errorOf(api, () =>
        new DeltaChannel(listReducer).update([{ __overwrite__: [1] }, { __overwrite__: [2] }]),
      ),
      badFrequency: await errorOf(
        api,
        () => new DeltaChannel(listReducer, { snapshotFrequency: 0 }),
      ),
      replayed: replayed.get(),
      restored: [
        spec.fromCheckpoint(undefined).get(),
        spec.fromCheckpoint(new DeltaSnapshot([7])).get(),
        spec.fromCheckpoint([8, 9]).get(),
      ],
      isSnapshot: [isDeltaSnapshot(new DeltaSnapshot(1)), isDeltaSnapshot([1])],
      equals: [
        spec.equals(new DeltaChannel(listReducer, { snapshotFrequency: 5 })),
        spec.equals(new DeltaChannel(listReducer)),
      ],
      exitIds: [
        exitDeltaTaskId(3, "00000000-0000-0000-0000-000000000000"),
        exitDeltaTaskId(12, "4f7226e4-0270-bf16-1ef8-fb321bef9f3d"),
        await errorOf(api, () => exitDeltaTaskId(1, "not-a-uuid")),
      ],
    };
  },

  /** The batch messages reducer: ids replace, removals, REMOVE_ALL_MESSAGES, batching. */
  async messagesDeltaReducer(api: GraphApi) {
    const { messagesDeltaReducer, REMOVE_ALL_MESSAGES } = lib(api);
    const ids = (messages: { id?: string; content: unknown }[]) =>
      messages.map((m) => [m.id ?? null, m.content]);
    const m1 = new HumanMessage({ id: "1", content: "a" });
    const m2 = new AIMessage({ id: "2", content: "b" });
    const m2b = new AIMessage({ id: "2", content: "b2" });
    const writes = [[m1], [new RemoveMessage({ id: REMOVE_ALL_MESSAGES })], [m2], [m2b]];
    return {
      once: ids(messagesDeltaReducer([], writes)),
      split: ids(
        messagesDeltaReducer(messagesDeltaReducer([], writes.slice(0, 2)), writes.slice(2)),
      ),
      removed: ids(messagesDeltaReducer([m1, m2], [[new RemoveMessage({ id: "1" })]])),
      unknownRemoval: ids(messagesDeltaReducer([m1], [new RemoveMessage({ id: "zz" })])),
      strings: ids(messagesDeltaReducer([], ["hello", ["there"]])),
      raw: ids(messagesDeltaReducer([{ type: "human", content: "old", id: "x" }], [[m2]])),
    };
  },

  /** A DeltaChannel key across turns on a saver, read back by a fresh graph; Overwrite resets. */
  async deltaKeyInAGraph(api: GraphApi) {
    const { DeltaChannel, messagesDeltaReducer, Overwrite } = lib(api);
    const State = api.Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer) });
    const saver = new api.MemorySaver();
    let turn = 0;
    const make = () =>
      new api.StateGraph(State)
        .addNode("chat", (state) => {
          turn += 1;
          const count = (state.messages as unknown[]).length;
          if (turn === 3) return { messages: new Overwrite([new AIMessage(`reset ${count}`)]) };
          return { messages: [new AIMessage(`reply ${turn} after ${count}`)] };
        })
        .addEdge(api.START, "chat")
        .addEdge("chat", api.END)
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "delta" } };
    const contents = (values: Record<string, unknown>) =>
      (values.messages as { content: unknown }[]).map((m) => m.content);
    const results: unknown[] = [];
    for (let i = 0; i < 4; i += 1)
      results.push(
        contents(await make().invoke({ messages: [new HumanMessage(`hi ${i}`)] }, config)),
      );
    const state = await make().getState(config);
    const empty = await new api.StateGraph(State)
      .addNode("look", (s) => ({ messages: [new AIMessage(`saw ${(s.messages as []).length}`)] }))
      .addEdge(api.START, "look")
      .addEdge("look", api.END)
      .compile()
      .invoke({});
    return { results, stored: contents(state.values), empty: contents(empty) };
  },
};
