/** Which malformed graphs each library refuses to build (whether, not the wording). */
import type { GraphApi } from "../api.js";

export const validationPrograms = {
  async malformedGraphsAreRejected(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    const node = () => ({ n: 1 });
    const graph = () => new api.StateGraph(State);
    const cases: Record<string, () => unknown> = {
      wellFormed: () => graph().addNode("a", node).addEdge(api.START, "a").compile(),
      unknownTarget: () =>
        graph().addNode("a", node).addEdge(api.START, "a").addEdge("a", "zzz").compile(),
      unknownSource: () =>
        graph().addNode("a", node).addEdge(api.START, "a").addEdge("zzz", "a").compile(),
      noEntry: () => graph().addNode("a", node).compile(),
      duplicateName: () =>
        graph().addNode("a", node).addNode("a", node).addEdge(api.START, "a").compile(),
      reservedStart: () => graph().addNode(api.START, node).compile(),
      reservedEnd: () => graph().addNode(api.END, node).compile(),
      nameIsStateKey: () => graph().addNode("n", node).addEdge(api.START, "n").compile(),
      endAsSource: () =>
        graph().addNode("a", node).addEdge(api.START, "a").addEdge(api.END, "a").compile(),
      startAsTarget: () => graph().addNode("a", node).addEdge("a", api.START).compile(),
      pathMapUnknownTarget: () =>
        graph()
          .addNode("a", node)
          .addEdge(api.START, "a")
          .addConditionalEdges("a", () => "x", { x: "nope" })
          .compile(),
      joinToUnknown: () =>
        graph()
          .addNode("a", node)
          .addNode("b", node)
          .addEdge(api.START, "a")
          .addEdge(api.START, "b")
          .addEdge(["a", "b"], "zzz")
          .compile(),
      joinFromUnknown: () =>
        graph()
          .addNode("a", node)
          .addNode("b", node)
          .addEdge(api.START, "a")
          .addEdge(["a", "zzz"], "b")
          .compile(),
      endsUnknown: () =>
        graph()
          .addNode("a", node, { ends: ["zzz"] })
          .addEdge(api.START, "a")
          .compile(),
      conditionalFromUnknown: () =>
        graph()
          .addNode("a", node)
          .addEdge(api.START, "a")
          .addConditionalEdges("zzz", () => "a")
          .compile(),
      interruptBeforeUnknown: () =>
        graph()
          .addNode("a", node)
          .addEdge(api.START, "a")
          .compile({ interruptBefore: ["zzz"] }),
    };
    const rejected: Record<string, boolean> = {};
    for (const [name, build] of Object.entries(cases)) {
      try {
        build();
        rejected[name] = false;
      } catch {
        rejected[name] = true;
      }
    }
    return rejected;
  },

  /** A node only a Command.goto leads to, not declared in `ends`. */
  async unreachableNode(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    try {
      const graph = new api.StateGraph(State)
        .addNode("a", () => new api.Command({ goto: "orphan" }))
        .addNode("orphan", () => ({ n: 2 }))
        .addEdge(api.START, "a")
        .compile();
      return { ran: await graph.invoke({ n: 0 }) };
    } catch (error) {
      return { rejected: error instanceof Error ? error.name : String(error) };
    }
  },
};
