/** Subgraphs as nodes and the stream modes. */
import type { GraphApi } from "../api.js";
import { collectStream, thread } from "../harness.js";
import { counterState, num } from "./common.js";

function childGraph(api: GraphApi) {
  return new api.StateGraph(counterState(api))
    .addNode("s1", (state) => ({ n: num(state, "n") * 2, log: ["s1"] }))
    .addNode("s2", () => ({ log: ["s2"] }))
    .addEdge(api.START, "s1")
    .addEdge("s1", "s2")
    .compile();
}

function branchingGraph(api: GraphApi) {
  return new api.StateGraph(counterState(api))
    .addNode("a", (state) => ({ n: num(state, "n") + 1, log: ["a"] }))
    .addNode("b", () => ({ log: ["b"] }))
    .addNode("c", () => ({ log: ["c"] }))
    .addNode("d", (state) => ({ n: num(state, "n") * 3, log: ["d"] }))
    .addEdge(api.START, "a")
    .addEdge("a", "b")
    .addEdge("a", "c")
    .addEdge(["b", "c"], "d")
    .compile();
}

export const compositionPrograms = {
  /** A compiled graph with the same schema added as a node: its whole output is its update. */
  async subgraphAsNode(api: GraphApi) {
    const parent = new api.StateGraph(counterState(api))
      .addNode("p", () => ({ log: ["p"] }))
      .addNode("child", childGraph(api))
      .addNode("after", (state) => ({ log: [`after n=${num(state, "n")}`] }))
      .addEdge(api.START, "p")
      .addEdge("p", "child")
      .addEdge("child", "after")
      .compile();
    return {
      result: await parent.invoke({ n: 3, log: ["in"] }),
      updates: await collectStream(parent, { n: 1 }, { streamMode: "updates" }),
    };
  },

  /** A subgraph with its own, narrower schema: shared keys flow in and out. */
  async subgraphWithOwnSchema(api: GraphApi) {
    const ChildState = api.Annotation.Root({ n: api.Annotation(), note: api.Annotation() });
    const child = new api.StateGraph(ChildState)
      .addNode("work", (state) => ({ n: num(state, "n") + 1, note: "child-only" }))
      .addEdge(api.START, "work")
      .compile();
    const parent = new api.StateGraph(counterState(api))
      .addNode("child", child)
      .addNode("after", (state) => ({ log: [`after n=${num(state, "n")}`] }))
      .addEdge(api.START, "child")
      .addEdge("child", "after")
      .compile();
    return parent.invoke({ n: 10 });
  },

  /** An interrupt inside a subgraph pauses the parent; resuming the parent finishes both. */
  async interruptInsideSubgraph(api: GraphApi) {
    const child = new api.StateGraph(counterState(api))
      .addNode("ask", () => ({ log: [`child got ${String(api.interrupt("child asks"))}`] }))
      .addEdge(api.START, "ask")
      .compile();
    const parent = new api.StateGraph(counterState(api))
      .addNode("child", child)
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(api.START, "child")
      .addEdge("child", "after")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("nested");
    const paused = await parent.invoke({ n: 0 }, config);
    const state = await parent.getState(config);
    const resumed = await parent.invoke(new api.Command({ resume: "yes" }), config);
    return { paused, next: state.next, resumed };
  },

  /** values, updates, and arrays of modes, on one branching graph. */
  async streamModes(api: GraphApi) {
    const graph = branchingGraph(api);
    const input = { n: 1, log: ["in"] };
    return {
      values: await collectStream(graph, input, { streamMode: "values" }),
      updates: await collectStream(graph, input, { streamMode: "updates" }),
      both: await collectStream(graph, input, { streamMode: ["updates", "values"] }),
      single: await collectStream(graph, input, { streamMode: ["values"] }),
    };
  },

  /** stream() without a streamMode: a compiled StateGraph streams "updates" in LangGraph.js. */
  async defaultStreamMode(api: GraphApi) {
    return collectStream(branchingGraph(api), { n: 1, log: ["in"] });
  },

  /** A node that returns nothing produces an update entry of its own in updates mode. */
  async emptyUpdates(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("quiet", () => undefined)
      .addNode("loud", () => ({ log: ["loud"] }))
      .addEdge(api.START, "quiet")
      .addEdge("quiet", "loud")
      .compile();
    return {
      updates: await collectStream(graph, { n: 0 }, { streamMode: "updates" }),
      values: await collectStream(graph, { n: 0 }, { streamMode: "values" }),
    };
  },
};
