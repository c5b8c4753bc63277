import { expect, it } from "vitest";
import { isOptionalPeerLoaded } from "../../src/core/index.js";
import { Annotation, END, MemorySaver, START, StateGraph } from "../../src/index.js";

it("a graph without messages never loads @langchain/core", async () => {
  const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
    .addNode("inc", (s) => ({ n: s.n + 1 }))
    .addEdge(START, "inc")
    .addEdge("inc", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "t" } };
  await graph.invoke({ n: 1 }, config);
  for await (const _ of await graph.stream(
    { n: 2 },
    { ...config, streamMode: ["values", "custom"] },
  ));
  expect((await graph.getState(config)).values).toEqual({ n: 3 });
  expect(isOptionalPeerLoaded("@langchain/core/messages")).toBe(false);
  expect(isOptionalPeerLoaded("@langchain/core/callbacks/base")).toBe(false);
});
