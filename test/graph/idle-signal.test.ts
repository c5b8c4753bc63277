import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "../../src/index.js";

describe("config.signal of a run without one", () => {
  const State = Annotation.Root({ n: Annotation<number>() });
  const seen: AbortSignal[] = [];
  const graph = new StateGraph(State)
    .addNode("a", (state, config) => {
      seen.push(config.signal!);
      // A listener left behind, as careless node code does.
      if (state.n === 1) config.signal!.addEventListener("abort", () => {});
      return { n: state.n + 1 };
    })
    .addEdge("__start__", "a")
    .compile();

  it("is shared while clean and replaced once a run leaves a listener on it", async () => {
    await graph.invoke({ n: 0 });
    await graph.invoke({ n: 0 });
    expect(seen[0]).toBe(seen[1]);
    await graph.invoke({ n: 1 });
    await graph.invoke({ n: 0 });
    expect(seen[2]).toBe(seen[1]);
    expect(seen[3]).not.toBe(seen[2]);
    expect(getEventListeners(seen[3]!, "abort")).toHaveLength(0);
    expect(seen.every((signal) => !signal.aborted)).toBe(true);
  });
});
