import { describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import type { StateChannel } from "../../src/graph/annotation.js";
import { langgraphMethods } from "../../src/graph/zod/index.js";
import { END, START, StateGraph } from "../../src/index.js";

/** A zod 3 object as state; its TypeScript state type is not what these tests check. */
const stateGraphOf = (schema: object) =>
  new StateGraph(schema as never) as unknown as StateGraph<Record<string, StateChannel>>;

// `schema.langgraph` is whichever library installed it first in this process (LangGraph.js's, if
// a parity file loaded it before), so Keel's methods are tested through `langgraphMethods`.
describe("keel/zod: .langgraph methods on zod 3 schemas", () => {
  it("installs a langgraph getter on zod 3 schemas", () => {
    expect("langgraph" in z3.string()).toBe(true);
  });

  it("reducer() folds writes and keeps zod's .default() as the key's default", async () => {
    const items = langgraphMethods(z3.array(z3.string()).default(() => ["default"])).reducer(
      (a: string[], b: string[] | string) => a.concat(b),
      z3.union([z3.string(), z3.array(z3.string())]),
    );
    const graph = stateGraphOf(z3.object({ foo: z3.string(), items }))
      .addNode("agent", () => ({ foo: "agent", items: ["a", "b"] }))
      .addNode("tool", () => ({ foo: "tool", items: "c" }))
      .addEdge(START, "agent")
      .addEdge("agent", "tool")
      .addEdge("tool", END)
      .compile();
    expect(await graph.invoke({ foo: "input" })).toEqual({
      foo: "tool",
      items: ["default", "a", "b", "c"],
    });
  });

  it("reducer() without a zod default leaves the key empty until written", async () => {
    const total = langgraphMethods(z3.number()).reducer((a: number, b: number) => a + b);
    const graph = stateGraphOf(z3.object({ total }))
      .addNode("add", () => ({ total: 2 }))
      .addEdge(START, "add")
      .addEdge("add", END)
      .compile();
    expect(await graph.invoke({ total: 1 })).toEqual({ total: 3 });
  });
});
