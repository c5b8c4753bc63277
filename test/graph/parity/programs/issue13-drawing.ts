/** `getGraph()` / `drawMermaid()`: the same Mermaid text as LangGraph.js. */
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;

export const issue13DrawingPrograms = {
  /** Static, conditional (path map and none), `ends`, joins, interrupts, implicit END, xray. */
  async mermaid(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    const noop = () => ({});
    const sub = new api.StateGraph(State)
      .addNode("inner1", noop)
      .addNode("inner2", noop)
      .addNode("inner3", noop)
      .addEdge(api.START, "inner1")
      .addConditionalEdges("inner1", () => "inner2", ["inner2", "inner3"])
      .compile();
    const graph = new api.StateGraph(State)
      .addNode("starter", noop)
      .addNode("inner", sub)
      .addNode("router", () => new api.Command({ goto: "final" }), { ends: ["final", "inner"] })
      .addNode("side", noop)
      .addNode("final", noop)
      .addEdge(api.START, "starter")
      .addEdge("starter", "router")
      .addEdge("starter", "side")
      .addEdge(["side", "inner"], "final")
      .addConditionalEdges("final", () => api.END)
      .compile({ interruptBefore: ["starter"], interruptAfter: ["side"] }) as unknown as Loose;
    const chain = new api.StateGraph(State)
      .addNode("a", noop)
      .addNode("b", noop)
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile() as unknown as Loose;
    return {
      plain: graph.getGraph().drawMermaid(),
      xray: graph.getGraph({ xray: true }).drawMermaid(),
      async: (await graph.getGraphAsync()).drawMermaid(),
      implicitEnd: chain.getGraph().drawMermaid(),
    };
  },
};
