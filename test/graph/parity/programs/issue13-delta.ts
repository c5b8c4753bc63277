/** LangGraph.js's `DeltaChannel` and `messagesDeltaReducer`, alone and as a graph's state key. */
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { MemorySaver as LangGraphMemorySaver } from "@langchain/langgraph-checkpoint";
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

  /**
   * The delta storage format's building blocks: a checkpoint leaves a delta channel out unless it
   * snapshots it; the snapshot rule; a saver's walk back to the nearest stored value (writes
   * oldest first, a step's ordered by task id; the base walk agreeing with the saver's own); a
   * channel rebuilt from that walk.
   */
  async deltaStorage(api: GraphApi) {
    const {
      DeltaChannel,
      DeltaSnapshot,
      isDeltaSnapshot,
      MemorySaver,
      BaseCheckpointSaver,
      emptyCheckpoint,
      createCheckpoint,
      deltaChannelsToSnapshot,
      channelsFromCheckpoint,
    } = lib(api);
    const kept = new DeltaChannel(listReducer);
    const left = new DeltaChannel(listReducer, { snapshotFrequency: 2 });
    const plain = new DeltaChannel(listReducer);
    kept.update([[1, 2]]);
    left.update([[3]]);
    const base = { ...emptyCheckpoint(), channel_versions: { kept: 1, left: 1 } };
    const made = createCheckpoint(base, { kept, left, plain }, 0, {
      channelsToSnapshot: new Set(["kept"]),
    });
    const toSnapshot = (counters: Loose) => [
      ...deltaChannelsToSnapshot({ kept, left, plain }, counters),
    ];

    const saver = new MemorySaver();
    const meta = { source: "loop", step: 0, parents: {} };
    const thread = { configurable: { thread_id: "d", checkpoint_ns: "" } };
    const at = (n: number, values: Loose) => ({
      ...emptyCheckpoint(),
      id: `00000000-0000-0000-0000-00000000000${n}`,
      channel_values: values,
      channel_versions: { list: n + 1 },
    });
    const c0 = await saver.put(thread, at(0, { list: new DeltaSnapshot([0]) }), meta, {
      list: 1,
    });
    await saver.putWrites(c0, [["list", [2]]], "task-b");
    await saver.putWrites(c0, [["list", [1]]], "task-a");
    const c1 = await saver.put(c0, at(1, {}), meta, { list: 2 });
    await saver.putWrites(c1, [["list", [3]]], "task-c");
    const c2 = await saver.put(c1, at(2, {}), meta, { list: 3 });
    await saver.putWrites(c2, [["list", [99]]], "task-d");
    const own = await saver.getDeltaChannelHistory({ config: c2, channels: ["list", "none"] });
    const walked = await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, {
      config: c2,
      channels: ["list"],
    });
    const rebuilt = await channelsFromCheckpoint(
      { list: new DeltaChannel(listReducer) },
      at(2, {}),
      { saver, config: c2 },
    );
    return {
      made: [isDeltaSnapshot(made.channel_values.kept), made.channel_values.kept?.value],
      madeKeys: Object.keys(made.channel_values),
      byUpdates: toSnapshot({ kept: [1000, 0], left: [2, 0], plain: [5000, 0] }),
      bySupersteps: toSnapshot({ kept: [0, 5000], left: [0, 4999] }),
      none: toSnapshot({}),
      seed: [isDeltaSnapshot(own.list.seed), own.list.seed?.value],
      writes: own.list.writes,
      noneChannel: own.none,
      baseAgrees: JSON.stringify(walked.list) === JSON.stringify(own.list),
      rebuilt: rebuilt.list.get(),
    };
  },

  /**
   * A graph's DeltaChannel key on a saver that is not Keel's SQL savers, in LangGraph.js's delta
   * format: left out of a checkpoint between snapshots (every `snapshotFrequency` updates), a
   * snapshot after an Overwrite (with the counters in the metadata reset), and rebuilt on read by
   * a fresh graph (getState, history) from the nearest snapshot and the writes saved since.
   */
  async deltaKeySavedAsWrites(api: GraphApi) {
    const { DeltaChannel, isDeltaSnapshot, Overwrite } = lib(api);
    const State = api.Annotation.Root({
      log: new DeltaChannel(listReducer, { snapshotFrequency: 3 }),
    });
    const saver = new api.MemorySaver() as Loose;
    const make = () =>
      new api.StateGraph(State)
        .addNode("a", () => ({ log: [1] }))
        .addNode("b", (s) => ((s.log as number[]).length > 6 ? { log: new Overwrite([0]) } : {}))
        .addNode("c", () => ({ log: [2] }))
        .addEdge(api.START, "a")
        .addEdge("a", "b")
        .addEdge("a", "c")
        .addEdge("b", api.END)
        .addEdge("c", api.END)
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "delta-writes" } };
    const live: unknown[] = [];
    for (let i = 0; i < 4; i += 1) live.push((await make().invoke({ log: [9] }, config)).log);
    const stored: unknown[] = [];
    for await (const tuple of saver.list(config)) {
      const value = tuple.checkpoint.channel_values.log;
      stored.push([
        tuple.metadata.step,
        value === undefined ? "absent" : isDeltaSnapshot(value) ? ["snapshot", value.value] : value,
        tuple.metadata.counters_since_delta_snapshot?.log ?? null,
      ]);
    }
    const history: unknown[] = [];
    for await (const snapshot of make().getStateHistory(config)) history.push(snapshot.values.log);
    return { live, stored, state: (await make().getState(config)).values.log, history };
  },

  /** `exit` durability and `updateState` with a DeltaChannel key: read back as they were. */
  async deltaKeyExitAndUpdate(api: GraphApi) {
    const { DeltaChannel, Overwrite } = lib(api);
    const State = api.Annotation.Root({ log: new DeltaChannel(listReducer) });
    const saver = new api.MemorySaver() as Loose;
    const make = () =>
      new api.StateGraph(State)
        .addNode("a", () => ({ log: new Overwrite([5]) }))
        .addNode("b", () => ({ log: [6] }))
        .addEdge(api.START, "a")
        .addEdge("a", "b")
        .addEdge("b", api.END)
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "delta-exit" } };
    const live = (await make().invoke({ log: [1] }, { ...config, durability: "exit" })).log;
    const afterExit = (await make().getState(config)).values.log;
    await make().updateState(config, { log: [7] }, "b");
    const afterUpdate = (await make().getState(config)).values.log;
    const next = (await make().invoke({ log: [8] }, config)).log;
    return { live, afterExit, afterUpdate, next, read: (await make().getState(config)).values.log };
  },

  /**
   * A saver from LangGraph.js's own checkpoint package (it has no `flush`) runs a graph with a
   * DeltaChannel key on both libraries: writes saved in the delta format, read back by the walk.
   */
  async deltaKeyOnLangGraphSaver(api: GraphApi) {
    const { DeltaChannel, messagesDeltaReducer } = lib(api);
    const State = api.Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer) });
    const saver = new LangGraphMemorySaver();
    let turn = 0;
    const make = () =>
      new api.StateGraph(State)
        .addNode("chat", () => {
          turn += 1;
          return { messages: [new AIMessage({ id: `r${turn}`, content: `reply ${turn}` })] };
        })
        .addEdge(api.START, "chat")
        .addEdge("chat", api.END)
        .compile({ checkpointer: saver as never });
    const config = { configurable: { thread_id: "lg-saver" } };
    for (let i = 0; i < 3; i += 1)
      await make().invoke(
        { messages: [new HumanMessage({ id: `h${i}`, content: `hi ${i}` })] },
        config,
      );
    const state = await make().getState(config);
    return (state.values.messages as { id: string; content: unknown }[]).map((m) => [
      m.id,
      m.content,
    ]);
  },

  /**
   * A DeltaChannel key through a pause: the finished sibling's writes and the resumed node's are
   * both in the next checkpoint; a resume with an update, an update, and a run from a past
   * checkpoint read back (by a fresh graph, state and history) as live.
   */
  async deltaKeyThroughPauses(api: GraphApi) {
    const { DeltaChannel } = lib(api);
    const State = api.Annotation.Root({
      log: new DeltaChannel(listReducer),
      sides: api.Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 }),
    });
    const saver = new api.MemorySaver() as Loose;
    // One writer of `log` per step: LangGraph.js orders a step's writes to a delta key by task
    // id, which differs between the libraries (see deltaKeyConcurrentWrites).
    const make = () =>
      new api.StateGraph(State)
        .addNode("a", () => ({ log: [1] }))
        .addNode("ask", () => ({ log: [Number(api.interrupt("n?"))] }))
        .addNode("side", () => ({ sides: 1 }))
        .addNode("z", () => ({ log: [3] }))
        .addEdge(api.START, "a")
        .addEdge("a", "ask")
        .addEdge("a", "side")
        .addEdge("ask", "z")
        .addEdge("side", "z")
        .addEdge("z", api.END)
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "delta-pause" } };
    const read = async () => (await make().getState(config)).values.log;
    const out: Record<string, unknown> = {};
    await make().invoke({ log: [0] }, config);
    out.paused = await read();
    out.resumed = (await make().invoke(new api.Command({ resume: 7 }), config)).log;
    out.readResumed = await read();
    await make().invoke({ log: [10] }, config);
    await make().invoke(new api.Command({ resume: 8 }), config);
    await make().updateState(config, { log: [30] }, "z");
    out.afterUpdate = await read();
    const history: Loose[] = [];
    for await (const snapshot of make().getStateHistory(config)) history.push(snapshot);
    out.history = history.map((snapshot) => snapshot.values.log);
    const past = history.find((snapshot) => snapshot.next.includes("ask"))!;
    out.fromPast = (await make().invoke(new api.Command({ resume: 9 }), past.config)).log;
    out.readFromPast = await read();
    out.rerun = (await make().invoke(null, history[history.length - 3]!.config)).log;
    out.readRerun = await read();
    // Last: LangGraph.js saves the paused checkpoint again with such an update applied, which
    // its history shows; Keel applies it in place (a difference of history, not of delta keys).
    await make().invoke({ log: [40] }, config);
    out.resumedWithUpdate = (
      await make().invoke(new api.Command({ resume: 8, update: { log: [20] } }), config)
    ).log;
    out.readWithUpdate = await read();
    return out;
  },

  /**
   * Several writers of a DeltaChannel key in one step (the order they apply in is each library's
   * own: Keel's node order, LangGraph.js's task-id order): whatever it is, a fresh graph reads
   * back the value the run returned, through later steps and turns.
   */
  async deltaKeyConcurrentWrites(api: GraphApi) {
    const { DeltaChannel } = lib(api);
    const State = api.Annotation.Root({ log: new DeltaChannel(listReducer) });
    const saver = new api.MemorySaver() as Loose;
    const make = () =>
      new api.StateGraph(State)
        .addNode("a", () => ({ log: [1] }))
        .addNode("b", () => ({ log: [2] }))
        .addNode("c", () => ({ log: [3] }))
        .addNode("z", () => ({ log: [4] }))
        .addEdge(api.START, "a")
        .addEdge(api.START, "b")
        .addEdge(api.START, "c")
        .addEdge("a", "z")
        .addEdge("b", "z")
        .addEdge("c", "z")
        .addEdge("z", api.END)
        .compile({ checkpointer: saver });
    const out: unknown[] = [];
    for (let thread = 0; thread < 4; thread += 1) {
      const config = { configurable: { thread_id: `concurrent-${thread}` } };
      for (let turn = 0; turn < 2; turn += 1) {
        const live = (await make().invoke({ log: [0] }, config)).log as number[];
        const read = (await make().getState(config)).values.log as number[];
        out.push([JSON.stringify(live) === JSON.stringify(read), [...live].sort()]);
      }
    }
    return out;
  },

  /**
   * A new input on a thread paused in a step where a sibling finished and wrote the DeltaChannel
   * key: the run starts over without that write, and a fresh graph reads back what it returned.
   */
  async deltaKeyNewInputOverPause(api: GraphApi) {
    const { DeltaChannel } = lib(api);
    const State = api.Annotation.Root({ log: new DeltaChannel(listReducer) });
    const saver = new api.MemorySaver() as Loose;
    let asked = 0;
    const make = () =>
      new api.StateGraph(State)
        .addNode("a", () => ({ log: [1] }))
        .addNode("ask", () => {
          asked += 1;
          return asked === 1 ? { log: [Number(api.interrupt("n?"))] } : {};
        })
        .addNode("side", () => ({ log: [2] }))
        .addEdge(api.START, "a")
        .addEdge("a", "ask")
        .addEdge("a", "side")
        .addEdge("ask", api.END)
        .addEdge("side", api.END)
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "delta-new-input" } };
    const read = async () => (await make().getState(config)).values.log;
    const paused = await make().invoke({ log: [0] }, config);
    const readPaused = await read();
    const again = (await make().invoke({ log: [10] }, config)).log;
    return { paused: paused.log, readPaused, again, readAgain: await read() };
  },

  /**
   * A DeltaChannel key in a stateful subgraph (`checkpointer: true`, its own namespace on the
   * parent's saver) and written by `Send` tasks: each turn's state read back by fresh graphs.
   */
  async deltaKeyInSubgraphAndSends(api: GraphApi) {
    const { DeltaChannel } = lib(api);
    const State = api.Annotation.Root({ log: new DeltaChannel(listReducer) });
    const saver = new api.MemorySaver() as Loose;
    const make = () => {
      const child = new api.StateGraph(State)
        .addNode("step", (s) => ({ log: [(s.log as number[]).length] }))
        .addEdge(api.START, "step")
        .addEdge("step", api.END)
        .compile({ checkpointer: true } as never);
      return new api.StateGraph(State)
        .addNode("fan", () => ({}))
        .addNode("work", (s) => ({ log: [100 + (s.log as number[])[0]!] }))
        .addNode("child", child as never)
        .addEdge(api.START, "fan")
        .addConditionalEdges("fan", () => [new api.Send("work", { log: [1] })])
        .addEdge("work", "child")
        .addEdge("child", api.END)
        .compile({ checkpointer: saver });
    };
    const config = { configurable: { thread_id: "delta-sub" } };
    const out: unknown[] = [];
    for (let turn = 0; turn < 3; turn += 1) {
      const live = (await make().invoke({ log: [turn] }, config)).log;
      const read = (await make().getState(config)).values.log;
      out.push([live, read]);
    }
    return out;
  },
};
