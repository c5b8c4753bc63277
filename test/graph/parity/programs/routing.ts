/** Send map-reduce and Command routing. */
import type { GraphApi } from "../api.js";
import { collectStream, outcome } from "../harness.js";
import { counterState, num } from "./common.js";

function mapReduceState(api: GraphApi): unknown {
  return api.Annotation.Root({
    items: api.Annotation(),
    results: api.Annotation({
      reducer: (a: number[], b: number[]) => a.concat(b),
      default: () => [],
    }),
    summary: api.Annotation(),
  });
}

export const routingPrograms = {
  /** One Send per item to a worker with its own input, then a reduce step over all results. */
  async sendMapReduce(api: GraphApi) {
    const graph = new api.StateGraph(mapReduceState(api))
      .addNode("worker", (input) => ({ results: [num(input, "item") * 10] }))
      .addNode("reduce", (state) => ({
        summary: (state.results as number[]).reduce((sum, value) => sum + value, 0),
      }))
      .addConditionalEdges(api.START, (state) =>
        (state.items as number[]).map((item) => new api.Send("worker", { item })),
      )
      .addEdge("worker", "reduce")
      .addEdge("reduce", api.END)
      .compile();
    return {
      result: await graph.invoke({ items: [3, 1, 2, 5] }),
      noItems: await outcome(api, () => graph.invoke({ items: [] })),
      updates: await collectStream(graph, { items: [4, 6] }, { streamMode: "updates" }),
    };
  },

  /** Sends from a node's conditional edge mix with plain node names in the same step. */
  async sendMixedWithNodeNames(api: GraphApi) {
    const graph = new api.StateGraph(mapReduceState(api))
      .addNode("plan", () => ({ summary: "planned" }))
      .addNode("worker", (input) => ({ results: [num(input, "item")] }))
      .addNode("audit", (state) => ({ results: [(state.results as number[]).length * 1000] }))
      .addConditionalEdges("plan", (state) => [
        "audit",
        ...(state.items as number[]).map((item) => new api.Send("worker", { item })),
      ])
      .addEdge(api.START, "plan")
      .compile();
    return graph.invoke({ items: [7, 8] });
  },

  /** Command: update plus goto chosen at run time, to one node, several, and END. */
  async commandGoto(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode(
        "route",
        (state) => {
          const n = num(state, "n");
          const goto = n === 0 ? "low" : n === 1 ? ["low", "high"] : n === 2 ? api.END : "high";
          return new api.Command({ update: { n: n + 100, log: ["route"] }, goto });
        },
        { ends: ["low", "high"] },
      )
      .addNode("low", () => ({ log: ["low"] }))
      .addNode("high", () => ({ log: ["high"] }))
      .addEdge(api.START, "route")
      .compile();
    const results: Record<string, unknown> = {};
    for (const n of [0, 1, 2, 3]) results[n] = await graph.invoke({ n });
    return {
      results,
      updates: await collectStream(graph, { n: 1 }, { streamMode: "updates" }),
    };
  },

  /** A Command's goto adds to, not replaces, the node's static edges. */
  async commandWithStaticEdge(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("a", () => new api.Command({ update: { log: ["a"] }, goto: "jump" }), {
        ends: ["jump"],
      })
      .addNode("jump", () => ({ log: ["jump"] }))
      .addNode("static", () => ({ log: ["static"] }))
      .addEdge(api.START, "a")
      .addEdge("a", "static")
      .compile();
    return graph.invoke({ n: 0 });
  },

  /** Command goto with Send objects. */
  async commandGotoSend(api: GraphApi) {
    const graph = new api.StateGraph(mapReduceState(api))
      .addNode(
        "dispatch",
        (state) =>
          new api.Command({
            update: { summary: "dispatched" },
            goto: (state.items as number[]).map((item) => new api.Send("worker", { item })),
          }),
        { ends: ["worker"] },
      )
      .addNode("worker", (input) => ({ results: [num(input, "item") + 1] }))
      .addEdge(api.START, "dispatch")
      .compile();
    return graph.invoke({ items: [10, 20, 30] });
  },

  /**
   * Parallel nodes declared out of name order: the order they start in (seen by side effects and
   * by updates-mode chunks of synchronous nodes), reached by edges, a path, and a Command.
   */
  async parallelStartOrder(api: GraphApi) {
    const names = ["zeta", "mid", "alpha"];
    const route = (kind: string) => {
      const started: string[] = [];
      let graph = new api.StateGraph(counterState(api));
      for (const name of names) {
        graph = graph.addNode(name, () => {
          started.push(name);
          return { log: [name] };
        });
      }
      if (kind === "edges")
        for (const name of ["alpha", "zeta", "mid"]) graph.addEdge(api.START, name);
      if (kind === "path") graph.addConditionalEdges(api.START, () => ["mid", "zeta", "alpha"]);
      if (kind === "command") {
        graph
          .addNode("router", () => new api.Command({ goto: ["mid", "alpha", "zeta"] }), {
            ends: names,
          })
          .addEdge(api.START, "router");
      }
      return { graph: graph.compile(), started };
    };
    const result: Record<string, unknown> = {};
    for (const kind of ["edges", "path", "command"]) {
      const { graph, started } = route(kind);
      const updates = await collectStream(graph, { n: 0 }, { streamMode: "updates" });
      result[kind] = { started, updates };
    }
    return result;
  },
};
