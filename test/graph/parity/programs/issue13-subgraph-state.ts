/**
 * A paused subgraph's own state, read and changed through its parent on both libraries:
 * `getState(config, { subgraphs: true })`, `tasks[i].state`, and the subgraph's config given to
 * `getState`, `getStateHistory` and `updateState`.
 */
import type { GraphApi, RunConfig, StateSnapshotLike, Values } from "../api.js";
import { snapshotView, thread } from "../harness.js";
import { concat } from "./common.js";

interface WithSubgraphState extends StateSnapshotLike {
  tasks: Array<StateSnapshotLike["tasks"][number] & { state?: StateSnapshotLike | RunConfig }>;
}

interface SubgraphStateGraph {
  invoke(input: unknown, config?: RunConfig): Promise<Values>;
  getState(config: RunConfig, options?: { subgraphs?: boolean }): Promise<WithSubgraphState>;
  getStateHistory(config: RunConfig): AsyncIterable<StateSnapshotLike>;
  updateState(config: RunConfig, values: Values, asNode?: string): Promise<RunConfig>;
}

function pausedSubgraph(api: GraphApi): SubgraphStateGraph {
  const State = api.Annotation.Root({
    log: api.Annotation({ reducer: concat, default: () => [] }),
  });
  const child = new api.StateGraph(State)
    .addNode("prepare", () => ({ log: ["prepare"] }))
    .addNode("ask", () => ({ log: [`answer:${String(api.interrupt("question"))}`] }))
    .addEdge(api.START, "prepare")
    .addEdge("prepare", "ask")
    .compile();
  return new api.StateGraph(State)
    .addNode("before", () => ({ log: ["before"] }))
    .addNode("sub", child)
    .addEdge(api.START, "before")
    .addEdge("before", "sub")
    .compile({ checkpointer: new api.MemorySaver() }) as unknown as SubgraphStateGraph;
}

/** A task's `state` as a user checks it: a snapshot or a config, and its namespace. */
function stateView(state: StateSnapshotLike | RunConfig | undefined): unknown {
  if (state === undefined) return "none";
  const ns = (state as RunConfig).configurable?.checkpoint_ns;
  if (!("values" in state))
    return { config: true, ns: typeof ns === "string" && ns.startsWith("sub:") };
  const snapshot = state as StateSnapshotLike;
  const snapNs = snapshot.config.configurable?.checkpoint_ns;
  return {
    ...(snapshotView(snapshot) as object),
    ns: typeof snapNs === "string" && snapNs.startsWith("sub:"),
  };
}

export const issue13SubgraphStatePrograms = {
  /** The parent's snapshot carries the paused subgraph's, or its config without the option. */
  async getStateWithSubgraphs(api: GraphApi) {
    const graph = pausedSubgraph(api);
    const config = thread("subgraph-state");
    await graph.invoke({ log: [] }, config);
    const plain = await graph.getState(config);
    const deep = await graph.getState(config, { subgraphs: true });
    return {
      plain: plain.tasks.map((task) => stateView(task.state)),
      deep: deep.tasks.map((task) => stateView(task.state)),
    };
  },

  /** A subgraph's config reads its own state and history, and updateState changes that state. */
  async subgraphConfigReadsAndUpdates(api: GraphApi) {
    const graph = pausedSubgraph(api);
    const config = thread("subgraph-config");
    await graph.invoke({ log: [] }, config);
    const subConfig = (await graph.getState(config)).tasks[0]?.state as RunConfig;
    const own = snapshotView(await graph.getState(subConfig));
    const history: unknown[] = [];
    for await (const snapshot of graph.getStateHistory(subConfig))
      history.push({ values: snapshot.values, next: snapshot.next });
    await graph.updateState(subConfig, { log: ["edited"] }, "prepare");
    const edited = (await graph.getState(config, { subgraphs: true })).tasks.map((task) =>
      stateView(task.state),
    );
    const resumed = await graph.invoke(new api.Command({ resume: "yes" }), config);
    return { own, history, edited, resumed };
  },

  /**
   * Replaying the parent from before a stateful subgraph (`checkpointer: true`) ran gives the
   * subgraph its state as it was then; the next ordinary run continues from its latest state.
   */
  async statefulSubgraphReplay(api: GraphApi) {
    const seen: unknown[] = [];
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const Sub = api.Annotation.Root({
      trail: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const sub = new api.StateGraph(Sub)
      .addNode("step", (state: Values) => {
        seen.push([...(state.trail as string[])]);
        return { trail: ["s"] };
      })
      .addEdge(api.START, "step")
      .compile({ checkpointer: true } as never);
    const graph = new api.StateGraph(State)
      .addNode("first", () => ({ log: ["first"] }))
      .addNode("sub", sub)
      .addEdge(api.START, "first")
      .addEdge("first", "sub")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as SubgraphStateGraph;
    const config = thread("stateful-replay");
    await graph.invoke({ log: [] }, config);
    await graph.invoke({ log: [] }, config);
    const history: StateSnapshotLike[] = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const beforeFirstSub = history.filter((s) => s.next.includes("sub")).at(-1);
    await graph.invoke(null, beforeFirstSub?.config);
    await graph.invoke({ log: [] }, config);
    return seen;
  },

  /** A subgraph checkpoint's config, given to the parent's invoke, replays from it (a fork). */
  async timeTravelIntoSubgraph(api: GraphApi) {
    const called: string[] = [];
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const sub = new api.StateGraph(State)
      .addNode("prep", () => {
        called.push("prep");
        return { log: ["prep"] };
      })
      .addNode("ask", () => {
        called.push("ask");
        return { log: [`ask:${String(api.interrupt("Q?"))}`] };
      })
      .addEdge(api.START, "prep")
      .addEdge("prep", "ask")
      .compile({ checkpointer: true } as never);
    const graph = new api.StateGraph(State)
      .addNode("sub", sub)
      .addEdge(api.START, "sub")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as SubgraphStateGraph;
    const config = thread("travel-into");
    await graph.invoke({ log: [] }, config);
    const deep = await graph.getState(config, { subgraphs: true });
    const atInterrupt = (deep.tasks[0]?.state as StateSnapshotLike | undefined)?.config;
    await graph.invoke(new api.Command({ resume: "one" }), config);
    called.length = 0;
    const replay = await graph.invoke(null, atInterrupt);
    const replayCalled = [...called];
    const final = await graph.invoke(new api.Command({ resume: "two" }), config);
    return { replay, replayCalled, final };
  },
};
