import { describe, expect, it } from "vitest";
import { Annotation, OVERWRITE, START, StateGraph } from "../../src/index.js";

describe("Overwrite wire form", () => {
  it("a node returning { key: { __overwrite__: v } } replaces a reducer key without the reducer", async () => {
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: { [OVERWRITE]: ["only"] } as unknown as string[] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    expect(await graph.invoke({ log: ["in"] })).toEqual({ log: ["only"] });
  });
});
