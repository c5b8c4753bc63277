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
};
