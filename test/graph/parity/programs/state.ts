/** Reducers, parallel writes in one step, joins, conditional routing and loops, graph errors. */
import type { GraphApi, Values } from "../api.js";
import { outcome } from "../harness.js";
import { concat, counterState, num, pause } from "./common.js";

export const statePrograms = {
  /** Last-value keys overwrite, reducer keys accumulate from their default, input goes first. */
  async reducersAndDefaults(api: GraphApi) {
    const State = api.Annotation.Root({
      title: api.Annotation(),
      total: api.Annotation({ reducer: (a: number, b: number) => a + b, default: () => 100 }),
      tags: api.Annotation({ reducer: concat, default: () => ["default"] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("first", () => ({ title: "first", total: 1, tags: ["first"] }))
      .addNode("second", (state) => ({ title: `${state.title}+second`, total: 10 }))
      .addEdge(api.START, "first")
      .addEdge("first", "second")
      .addEdge("second", api.END)
      .compile();
    return {
      withInput: await graph.invoke({ title: "input", total: 5, tags: ["input"] }),
      withoutInput: await graph.invoke({}),
    };
  },

  /** The seed's scenario: a node reads { messages, step } and writes step only. */
  async nodePreservesUnwrittenKeys(api: GraphApi) {
    const State = api.Annotation.Root({
      messages: api.Annotation({ reducer: concat, default: () => [] }),
      step: api.Annotation(),
    });
    const graph = new api.StateGraph({ stateSchema: State })
      .addNode("advance", (state) => ({ step: num(state, "step") + 1 }))
      .addEdge(api.START, "advance")
      .compile();
    return graph.invoke({ messages: ["hello"], step: 1 });
  },

  /** Three branches finish in reverse order; the reducer still applies writes in a fixed order. */
  async parallelWritesInOneStep(api: GraphApi) {
    const branch = (name: string, delay: number) => async () => {
      await pause(delay);
      return { log: [name] };
    };
    const graph = new api.StateGraph(counterState(api))
      .addNode("fork", () => ({ log: ["fork"] }))
      .addNode("a", branch("a", 30))
      .addNode("b", branch("b", 15))
      .addNode("c", branch("c", 0))
      .addNode("join", (state) => ({ log: [`join saw ${(state.log as string[]).length}`] }))
      .addEdge(api.START, "fork")
      .addEdge("fork", "a")
      .addEdge("fork", "b")
      .addEdge("fork", "c")
      .addEdge(["a", "b", "c"], "join")
      .addEdge("join", api.END)
      .compile();
    return graph.invoke({ n: 0, log: [] });
  },

  /** A join waits for branches of different lengths; a plain edge fires as soon as its source does. */
  async joinWaitsForUnevenBranches(api: GraphApi) {
    const visit = (name: string) => () => ({ log: [name] });
    const graph = new api.StateGraph(counterState(api))
      .addNode("short", visit("short"))
      .addNode("long1", visit("long1"))
      .addNode("long2", visit("long2"))
      .addNode("join", visit("join"))
      .addNode("eager", visit("eager"))
      .addEdge(api.START, "short")
      .addEdge(api.START, "long1")
      .addEdge("long1", "long2")
      .addEdge(["short", "long2"], "join")
      .addEdge("short", "eager")
      .compile();
    return graph.invoke({ n: 0 });
  },

  /** A conditional loop with a list path map, and one with an object path map. */
  async conditionalLoops(api: GraphApi) {
    const loop = new api.StateGraph(counterState(api))
      .addNode("inc", (state) => ({ n: num(state, "n") + 1, log: [`inc${num(state, "n")}`] }))
      .addNode("done", () => ({ log: ["done"] }))
      .addEdge(api.START, "inc")
      .addConditionalEdges("inc", (state) => (num(state, "n") < 4 ? "inc" : "done"), [
        "inc",
        "done",
      ])
      .compile();
    const mapped = new api.StateGraph(counterState(api))
      .addNode("big", () => ({ log: ["big"] }))
      .addNode("small", () => ({ log: ["small"] }))
      .addConditionalEdges(api.START, (state) => (num(state, "n") > 5 ? "yes" : "no"), {
        yes: "big",
        no: "small",
      })
      .compile();
    const toEnd = new api.StateGraph(counterState(api))
      .addNode("check", () => ({ log: ["check"] }))
      .addNode("never", () => ({ log: ["never"] }))
      .addEdge(api.START, "check")
      .addConditionalEdges("check", () => api.END)
      .addEdge("check", "never")
      .compile();
    return {
      loop: await loop.invoke({ n: 0 }),
      big: await mapped.invoke({ n: 9 }),
      small: await mapped.invoke({ n: 1 }),
      endAlongsideEdge: await toEnd.invoke({ n: 0 }),
    };
  },

  /** What a node returning a Map or a class instance instead of a plain object does. */
  async nonPlainUpdates(api: GraphApi) {
    class Update {
      n = 3;
    }
    const results: Record<string, unknown> = {};
    for (const [name, value] of [
      ["map", new Map([["n", 3]])],
      ["classInstance", new Update()],
    ] as const) {
      const graph = new api.StateGraph(counterState(api))
        .addNode("writer", () => value)
        .addEdge(api.START, "writer")
        .compile();
      results[name] = await outcome(api, () => graph.invoke({ n: 0 }));
    }
    return results;
  },

  /** Seed 002's conditional edge as written: no path map, so "end" is the name of a node. */
  async seedConditionalEdge(api: GraphApi) {
    const State = api.Annotation.Root({
      messages: api.Annotation({ reducer: concat, default: () => [] }),
      step: api.Annotation(),
    });
    const graph = new api.StateGraph(State)
      .addNode("node_a", (state) => ({ step: num(state, "step") + 1 }))
      .addNode("node_b", (state) => ({ step: num(state, "step") + 2 }))
      .addNode("end", (state) => ({ messages: [`end at ${num(state, "step")}`] }))
      .addEdge(api.START, "node_a")
      .addConditionalEdges("node_a", (state) => (num(state, "step") > 5 ? "end" : "node_b"))
      .addEdge("node_b", "node_a")
      .compile();
    return { fromZero: await graph.invoke({ step: 0 }), fromTen: await graph.invoke({ step: 10 }) };
  },

  /** A path that returns several node names runs them all in the next step. */
  async conditionalFanOut(api: GraphApi) {
    const visit = (name: string) => () => ({ log: [name] });
    const graph = new api.StateGraph(counterState(api))
      .addNode("a", visit("a"))
      .addNode("b", visit("b"))
      .addNode("c", visit("c"))
      .addConditionalEdges(api.START, () => ["c", "a"])
      .compile();
    return graph.invoke({ n: 0 });
  },

  /** addSequence chains nodes in the order given. */
  async sequence(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addSequence({
        one: (state) => ({ n: num(state, "n") + 1, log: ["one"] }),
        two: (state) => ({ n: num(state, "n") * 10, log: ["two"] }),
        three: (state) => ({ n: num(state, "n") - 3, log: ["three"] }),
      })
      .addEdge(api.START, "one")
      .compile();
    return graph.invoke({ n: 1 });
  },

  /** Default limit 25, and the exact boundary of an explicit limit. */
  async recursionLimit(api: GraphApi) {
    let runs = 0;
    const forever = new api.StateGraph(counterState(api))
      .addNode("spin", () => {
        runs++;
        return { n: runs };
      })
      .addEdge(api.START, "spin")
      .addEdge("spin", "spin")
      .compile();
    const defaultLimit = await outcome(api, () => forever.invoke({ n: 0 }));
    const fourSteps = new api.StateGraph(counterState(api))
      .addNode("inc", (state) => ({ n: num(state, "n") + 1 }))
      .addEdge(api.START, "inc")
      .addConditionalEdges("inc", (state) => (num(state, "n") < 4 ? "inc" : api.END))
      .compile();
    const byLimit: Record<string, unknown> = {};
    for (const recursionLimit of [3, 4, 5, 6]) {
      byLimit[recursionLimit] = await outcome(api, () =>
        fourSteps.invoke({ n: 0 }, { recursionLimit }),
      );
    }
    return { defaultLimit, runsBeforeDefaultLimit: runs, byLimit };
  },

  /** Two writes to a last-value key in one step; also via a Command's update. */
  async invalidConcurrentUpdate(api: GraphApi) {
    const twoNodes = new api.StateGraph(counterState(api))
      .addNode("a", () => ({ n: 1 }))
      .addNode("b", () => ({ n: 2 }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "b")
      .compile();
    const withCommand = new api.StateGraph(counterState(api))
      .addNode("a", () => new api.Command({ update: { n: 1 }, goto: "b" }), { ends: ["b"] })
      .addNode("b", () => ({ log: ["b"] }))
      .addNode("c", () => ({ n: 3 }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "c")
      .compile();
    const reducerKeyIsFine = new api.StateGraph(counterState(api))
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "b")
      .compile();
    return {
      twoNodes: await outcome(api, () => twoNodes.invoke({ n: 0 })),
      withCommand: await outcome(api, () => withCommand.invoke({ n: 0 })),
      reducerKeyIsFine: await outcome(api, () => reducerKeyIsFine.invoke({ n: 0 })),
    };
  },

  /** A node's own error reaches the caller with its class and message. */
  async nodeErrorPropagates(api: GraphApi) {
    class QuotaError extends Error {
      override name = "QuotaError";
    }
    const graph = new api.StateGraph(counterState(api))
      .addNode("ok", () => ({ log: ["ok"] }))
      .addNode("fails", (state: Values) => {
        throw new QuotaError(`over quota at n=${num(state, "n")}`);
      })
      .addEdge(api.START, "ok")
      .addEdge("ok", "fails")
      .compile();
    try {
      await graph.invoke({ n: 7 });
      return { threw: false };
    } catch (error) {
      return {
        threw: true,
        isQuotaError: error instanceof QuotaError,
        message: error instanceof Error ? error.message : String(error),
      };
    }
  },

  /** A retry policy reruns a failing node until it succeeds or its attempts run out. */
  async retryPolicy(api: GraphApi) {
    let attempts = 0;
    const graph = new api.StateGraph(counterState(api))
      .addNode(
        "flaky",
        () => {
          attempts++;
          if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
          return { n: attempts, log: ["flaky"] };
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 1, backoffFactor: 1, jitter: false } },
      )
      .addEdge(api.START, "flaky")
      .compile();
    const succeeded = { result: await graph.invoke({ n: 0 }), attempts };
    let hopelessAttempts = 0;
    const hopeless = new api.StateGraph(counterState(api))
      .addNode(
        "hopeless",
        () => {
          hopelessAttempts++;
          throw new Error(`attempt ${hopelessAttempts} failed`);
        },
        { retryPolicy: { maxAttempts: 2, initialInterval: 1, jitter: false } },
      )
      .addEdge(api.START, "hopeless")
      .compile();
    const exhausted = await outcome(api, () => hopeless.invoke({ n: 0 }), true);
    return { succeeded, exhausted, hopelessAttempts };
  },
};
