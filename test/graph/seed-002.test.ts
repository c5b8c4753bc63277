/**
 * Seed 002, "state-graph" spec: every scenario, verbatim where the seed gives code.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  Annotation,
  Command,
  END,
  InvalidUpdateError,
  START,
  StateGraph,
} from "../../src/index.js";

const addMessages = (left: string[], right: string[]): string[] => left.concat(right);

describe("Requirement: State definition via annotations", () => {
  it("Scenario: Annotation.Root defines typed state — State has State, Update and Node type members", async () => {
    const State = Annotation.Root({
      messages: Annotation<string[]>(addMessages),
      step: Annotation<number>(),
    });
    expectTypeOf<typeof State.State>().toEqualTypeOf<{ messages: string[]; step: number }>();
    expectTypeOf<typeof State.Update>().toEqualTypeOf<{ messages?: string[]; step?: number }>();
    expectTypeOf<typeof State.Node>()
      .parameter(0)
      .toEqualTypeOf<{ messages: string[]; step: number }>();
    const node: typeof State.Node = (state) => ({ step: state.step + 1 });
    const graph = new StateGraph(State).addNode("n", node).addEdge(START, "n").compile();
    expect(await graph.invoke({ messages: [], step: 1 })).toEqual({ messages: [], step: 2 });
  });

  it("Scenario: LastValue reducer replaces on each write — two writes in the same step throw InvalidUpdateError", async () => {
    const State = Annotation.Root({
      messages: Annotation<string[]>(addMessages),
      step: Annotation<number>(),
    });
    const graph = new StateGraph(State)
      .addNode("first", () => ({ step: 2 }))
      .addNode("second", () => ({ step: 3 }))
      .addEdge(START, "first")
      .addEdge(START, "second")
      .compile();
    const error = await graph.invoke({ messages: [], step: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error).toMatchObject({
      code: "INVALID_CONCURRENT_GRAPH_UPDATE",
      details: { key: "step" },
    });
  });

  it("LastValue: one node writing { step: 2 } and then { step: 3 } in the same step throws InvalidUpdateError", async () => {
    const State = Annotation.Root({
      messages: Annotation<string[]>(addMessages),
      step: Annotation<number>(),
    });
    const graph = new StateGraph(State)
      .addNode("writer", () => [
        new Command({ update: { step: 2 } }),
        new Command({ update: { step: 3 } }),
      ])
      .addEdge(START, "writer")
      .compile();
    const error = await graph.invoke({ messages: [], step: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error).toMatchObject({
      code: "INVALID_CONCURRENT_GRAPH_UPDATE",
      details: { key: "step", node: "writer" },
    });
  });

  it("LastValue replaces across steps (one write per step is fine)", async () => {
    const State = Annotation.Root({ step: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ step: 2 }))
      .addNode("b", () => ({ step: 3 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    expect(await graph.invoke({ step: 0 })).toEqual({ step: 3 });
  });

  it("Scenario: BinaryOperator reducer accumulates — hello and world from two nodes", async () => {
    const State = Annotation.Root({
      messages: Annotation<string[]>(addMessages),
      step: Annotation<number>(),
    });
    const graph = new StateGraph(State)
      .addNode("hello", () => ({ messages: ["hello"] }))
      .addNode("world", () => ({ messages: ["world"] }))
      .addEdge(START, "hello")
      .addEdge(START, "world")
      .compile();
    const result = await graph.invoke({ messages: [], step: 0 });
    expect(result.messages).toEqual(["hello", "world"]);
  });
});

describe("Requirement: StateGraph builder", () => {
  const State = Annotation.Root({
    messages: Annotation<string[]>(addMessages),
    step: Annotation<number>(),
  });

  it("Scenario: StateGraph is constructed with state schema — new StateGraph({ stateSchema: State })", async () => {
    const graph = new StateGraph({ stateSchema: State })
      .addNode("reply", (state) => ({ messages: [`seen ${state.messages.length}`] }))
      .addEdge(START, "reply")
      .compile();
    expect(await graph.invoke({ messages: ["hi"], step: 0 })).toEqual({
      messages: ["hi", "seen 1"],
      step: 0,
    });
  });

  it("Scenario: Nodes can read and write state — returns { step: step + 1 }, messages preserved", async () => {
    const graph = new StateGraph({ stateSchema: State })
      .addNode("inc", ({ messages, step }) => {
        expect(messages).toEqual(["keep me"]);
        return { step: step + 1 };
      })
      .addEdge(START, "inc")
      .compile();
    expect(await graph.invoke({ messages: ["keep me"], step: 4 })).toEqual({
      messages: ["keep me"],
      step: 5,
    });
  });

  /** node_a adds 1 and node_b 2 to `step`, each noting its visit; node_b leads back to node_a. */
  function loopOfTwo(visits: string[]) {
    return new StateGraph({ stateSchema: State })
      .addNode("node_a", (state) => {
        visits.push(`a${state.step}`);
        return { step: state.step + 1 };
      })
      .addNode("node_b", (state) => {
        visits.push(`b${state.step}`);
        return { step: state.step + 2 };
      })
      .addEdge(START, "node_a")
      .addEdge("node_b", "node_a");
  }

  it('Scenario: Conditional edges route based on state — (state) => state.step > 5 ? "end" : "node_b"', async () => {
    const visits: string[] = [];
    const graph = loopOfTwo(visits)
      .addConditionalEdges("node_a", (state) => (state.step > 5 ? "end" : "node_b"), {
        end: END,
        node_b: "node_b",
      })
      .compile();
    expect(await graph.invoke({ messages: [], step: 0 })).toEqual({ messages: [], step: 7 });
    expect(visits).toEqual(["a0", "b1", "a3", "b4", "a6"]);
    visits.length = 0;
    expect(await graph.invoke({ messages: [], step: 10 })).toEqual({ messages: [], step: 11 });
    expect(visits).toEqual(["a10"]);
  });

  it('Scenario, verbatim: addConditionalEdges("node_a", (state) => state.step > 5 ? "end" : "node_b") routes to a node named "end"', async () => {
    // The seed's literal call has no path map, so "end" is a node name (END is "__end__").
    const visits: string[] = [];
    const builder = loopOfTwo(visits)
      .addNode("end", (state) => {
        visits.push(`end${state.step}`);
        return { messages: [`finished at ${state.step}`] };
      })
      .addEdge("end", END);
    // biome-ignore format: the seed's call, character for character
    builder.addConditionalEdges("node_a", (state) => state.step > 5 ? "end" : "node_b");
    const graph = builder.compile();
    expect(await graph.invoke({ messages: [], step: 0 })).toEqual({
      messages: ["finished at 7"],
      step: 7,
    });
    expect(visits).toEqual(["a0", "b1", "a3", "b4", "a6", "end7"]);
  });
});
