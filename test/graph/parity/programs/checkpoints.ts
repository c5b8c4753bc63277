/** Threads, getState / getStateHistory, updateState with asNode, and time travel. */
import type { GraphApi, HistoryOptions, StateSnapshotLike } from "../api.js";
import { historyView, outcome, snapshotView, thread } from "../harness.js";
import { counterState, num } from "./common.js";

function twoStepGraph(api: GraphApi, options: { interruptBefore?: string[] } = {}) {
  return new api.StateGraph(counterState(api))
    .addNode("a", (state) => ({ n: num(state, "n") + 1, log: ["a"] }))
    .addNode("b", (state) => ({ n: num(state, "n") * 10, log: ["b"] }))
    .addEdge(api.START, "a")
    .addEdge("a", "b")
    .addEdge("b", api.END)
    .compile({ checkpointer: new api.MemorySaver(), ...options });
}

async function historyOf(
  api: GraphApi,
  graph: ReturnType<typeof twoStepGraph>,
  id: string,
): Promise<StateSnapshotLike[]> {
  const snapshots: StateSnapshotLike[] = [];
  for await (const snapshot of graph.getStateHistory(thread(id))) snapshots.push(snapshot);
  if (snapshots.length === 0) throw new Error(`${api.label}: no history for ${id}`);
  return snapshots;
}

export const checkpointPrograms = {
  /** A thread keeps its state across invokes; another thread starts from nothing. */
  async threadsContinue(api: GraphApi) {
    const graph = twoStepGraph(api);
    return {
      first: await graph.invoke({ n: 1, log: ["one"] }, thread("t1")),
      second: await graph.invoke({ n: 2, log: ["two"] }, thread("t1")),
      keepsUnsentKeys: await graph.invoke({ log: ["three"] }, thread("t1")),
      otherThread: await graph.invoke({ n: 5 }, thread("t2")),
      stateT1: snapshotView(await graph.getState(thread("t1"))),
      emptyThread: snapshotView(await graph.getState(thread("never-used"))),
    };
  },

  /**
   * A new input on a paused thread starts over from START: the task the pause left pending (an
   * interrupted node, or one interruptBefore held back) does not run along with it.
   */
  async newInputOnPausedThread(api: GraphApi) {
    const build = (ask: boolean) =>
      new api.StateGraph(counterState(api))
        .addNode("first", () => ({ log: ["first"] }))
        .addNode("b", () => ({ log: [ask ? `b:${String(api.interrupt("?"))}` : "b"] }))
        .addEdge(api.START, "first")
        .addEdge("first", "b")
        .compile({ checkpointer: new api.MemorySaver(), interruptBefore: ask ? [] : ["b"] });
    const interrupted = build(true);
    await interrupted.invoke({ n: 0 }, thread("interrupted"));
    const held = build(false);
    await held.invoke({ n: 0 }, thread("held"));
    return {
      interrupted: await interrupted.invoke({ n: 1 }, thread("interrupted")),
      interruptedHistory: await historyView(interrupted, thread("interrupted")),
      held: await held.invoke({ n: 1 }, thread("held")),
      heldState: snapshotView(await held.getState(thread("held"))),
    };
  },

  /** The history of a finished run: values, next, step and source of every checkpoint. */
  async stateHistory(api: GraphApi) {
    const graph = twoStepGraph(api);
    await graph.invoke({ n: 1 }, thread("h"));
    await graph.invoke({ n: 3 }, thread("h"));
    return historyView(graph, thread("h"));
  },

  /** updateState as a node: the write goes through reducers and sets what runs next. */
  async updateStateAsNode(api: GraphApi) {
    const graph = twoStepGraph(api, { interruptBefore: ["b"] });
    const config = thread("u");
    const stopped = await graph.invoke({ n: 1 }, config);
    const updateConfig = await graph.updateState(config, { n: 100, log: ["manual"] }, "a");
    const afterUpdate = snapshotView(await graph.getState(config));
    const resumed = await graph.invoke(null, config);
    const asB = await graph.updateState(config, { log: ["as-b"] }, "b");
    return {
      stopped,
      updateReturnsThread: updateConfig.configurable?.thread_id,
      updateReturnsCheckpoint: typeof updateConfig.configurable?.checkpoint_id === "string",
      afterUpdate,
      resumed,
      asBReturnsCheckpoint: typeof asB.configurable?.checkpoint_id === "string",
      afterAsB: snapshotView(await graph.getState(config)),
      history: await historyView(graph, config),
    };
  },

  /** updateState without asNode on a thread that has not run yet, then a run from there. */
  async updateStateFreshThread(api: GraphApi) {
    const graph = twoStepGraph(api);
    const config = thread("fresh");
    await graph.updateState(config, { n: 4, log: ["seeded"] });
    const seeded = snapshotView(await graph.getState(config));
    const run = await graph.invoke(null, config);
    return { seeded, run, history: await historyView(graph, config) };
  },

  /**
   * updateState without asNode writes as the node that wrote the last step; after a parallel step
   * that is ambiguous and refused, and the thread is left as it was.
   */
  async updateStateInfersAsNode(api: GraphApi) {
    const single = twoStepGraph(api, { interruptBefore: ["b"] });
    await single.invoke({ n: 1 }, thread("one-writer"));
    await single.updateState(thread("one-writer"), { n: 7 });
    const inferred = snapshotView(await single.getState(thread("one-writer")));

    const parallel = new api.StateGraph(counterState(api))
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addNode("c", () => ({ log: ["c"] }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "b")
      .addEdge("a", "c")
      .addEdge("b", "c")
      .compile({ checkpointer: new api.MemorySaver(), interruptBefore: ["c"] });
    const config = thread("two-writers");
    await parallel.invoke({ n: 0 }, config);
    const ambiguous = await outcome(api, () => parallel.updateState(config, { n: 5 }));
    const unchanged = snapshotView(await parallel.getState(config));
    await parallel.updateState(config, { n: 5 }, "a");
    const asA = snapshotView(await parallel.getState(config));
    return { inferred, ambiguous, unchanged, asA, resumed: await parallel.invoke(null, config) };
  },

  /** Invoking from a past checkpoint replays from there and forks the thread's history. */
  async timeTravel(api: GraphApi) {
    const graph = twoStepGraph(api);
    await graph.invoke({ n: 1 }, thread("tt"));
    const history = await historyOf(api, graph, "tt");
    const beforeB = history.find((snapshot) => snapshot.next.includes("b"));
    if (beforeB === undefined) throw new Error(`${api.label}: no checkpoint before b`);
    const replayed = await graph.invoke(null, beforeB.config);
    const pastState = snapshotView(await graph.getState(beforeB.config));
    const forkConfig = await graph.updateState(beforeB.config, { n: 50 });
    const forked = await graph.invoke(null, forkConfig);
    return {
      replayed,
      pastState,
      forked,
      latest: snapshotView(await graph.getState(thread("tt"))),
      history: await historyView(graph, thread("tt")),
    };
  },

  /**
   * Replaying and forking from a past checkpoint never changes what older checkpoints hold, and
   * every history entry is the same snapshot getState gives for its config.
   */
  async forkLeavesOlderCheckpointsUnchanged(api: GraphApi) {
    const graph = twoStepGraph(api);
    await graph.invoke({ n: 1 }, thread("immutable"));
    const before = await historyOf(api, graph, "immutable");
    const views = async () =>
      Promise.all(
        before.map(async (snapshot) => snapshotView(await graph.getState(snapshot.config))),
      );
    const original = await views();
    const beforeB = before.find((snapshot) => snapshot.next.includes("b"));
    if (beforeB === undefined) throw new Error(`${api.label}: no checkpoint before b`);
    await graph.invoke(null, beforeB.config);
    await graph.invoke(null, await graph.updateState(beforeB.config, { n: 50 }));
    const after = await views();
    const agreement: boolean[] = [];
    for await (const entry of graph.getStateHistory(thread("immutable"))) {
      const direct = snapshotView(await graph.getState(entry.config));
      agreement.push(JSON.stringify(direct) === JSON.stringify(snapshotView(entry)));
    }
    return {
      original,
      unchanged: after.map(
        (view, index) => JSON.stringify(view) === JSON.stringify(original[index]),
      ),
      historyEntriesAgreeWithGetState: agreement,
    };
  },

  /** getStateHistory's limit, before and metadata filter options. */
  async historyOptions(api: GraphApi) {
    const graph = twoStepGraph(api);
    await graph.invoke({ n: 1 }, thread("options"));
    await graph.invoke({ n: 2 }, thread("options"));
    const all = await historyOf(api, graph, "options");
    const steps = async (options: HistoryOptions) => {
      const found: unknown[] = [];
      for await (const snapshot of graph.getStateHistory(thread("options"), options)) {
        found.push([snapshot.metadata?.step, snapshot.metadata?.source]);
      }
      return found;
    };
    const third = all[2];
    if (third === undefined) throw new Error(`${api.label}: history too short`);
    return {
      limit: await steps({ limit: 3 }),
      before: await steps({ before: third.config }),
      beforeWithLimit: await steps({ before: third.config, limit: 2 }),
      inputsOnly: await steps({ filter: { source: "input" } }),
    };
  },

  /** interruptBefore given per call, a node reading its config, an async path function. */
  async perCallInterruptAndNodeConfig(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("a", (state, config) => ({
        n: num(state, "n") + 1,
        log: [`a on ${String(config.configurable?.thread_id)}`],
      }))
      .addNode("b", (state) => ({ n: num(state, "n") * 10, log: ["b"] }))
      .addEdge(api.START, "a")
      .addConditionalEdges("a", async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return "b";
      })
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("per-call");
    return {
      stopped: await graph.invoke({ n: 1 }, { ...config, interruptBefore: ["b"] }),
      next: (await graph.getState(config)).next,
      resumed: await graph.invoke(null, config),
    };
  },
};
