import { describe, expect, it } from "vitest";
import {
  Annotation,
  Command,
  END,
  GraphRecursionError,
  Send,
  START,
  StateGraph,
} from "../../src/index.js";

const concat = <T>(a: T[], b: T[] | T): T[] => a.concat(b);
const State = Annotation.Root({
  log: Annotation<string[], string[] | string>({ reducer: concat, default: () => [] }),
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  flag: Annotation<string>(),
});

describe("bulk-synchronous super-steps", () => {
  it("runs the nodes of one step on the same snapshot and applies writes at the end of the step", async () => {
    const seen: Record<string, number> = {};
    const graph = new StateGraph(State)
      .addNode("a", (s) => {
        seen.a = s.count;
        return { count: 1, log: "a" };
      })
      .addNode("b", (s) => {
        seen.b = s.count;
        return { count: 10, log: "b" };
      })
      .addNode("c", (s) => {
        seen.c = s.count;
        return { log: "c" };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("a", "c")
      .addEdge("b", "c")
      .compile();
    const result = await graph.invoke({ count: 5 });
    expect(seen).toEqual({ a: 5, b: 5, c: 16 });
    // c is triggered by both a and b in the same step, and runs once.
    expect(result).toEqual({ log: ["a", "b", "c"], count: 16 });
  });

  it("applies the writes of one step in node-name order (reducer order is deterministic)", async () => {
    const graph = new StateGraph(State)
      .addNode("zeta", async () => {
        await new Promise((r) => setTimeout(r, 5));
        return { log: "zeta" };
      })
      .addNode("alpha", async () => ({ log: "alpha" }))
      .addEdge(START, "zeta")
      .addEdge(START, "alpha")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["alpha", "zeta"]);
  });

  it("a join fires once every source has run, even when they finish in different steps", async () => {
    const order: string[] = [];
    const node = (name: string) => () => {
      order.push(name);
      return { log: name };
    };
    const graph = new StateGraph(State)
      .addNode("fast", node("fast"))
      .addNode("slow1", node("slow1"))
      .addNode("slow2", node("slow2"))
      .addNode("joined", node("joined"))
      .addEdge(START, "fast")
      .addEdge(START, "slow1")
      .addEdge("slow1", "slow2")
      .addEdge(["fast", "slow2"], "joined")
      .compile();
    await graph.invoke({});
    expect(order).toEqual(["fast", "slow1", "slow2", "joined"]);
  });

  it("a join whose source was skipped by a branch never fires", async () => {
    const graph = new StateGraph(State)
      .addNode("router", () => ({}))
      .addNode("left", () => ({ log: "left" }))
      .addNode("right", () => ({ log: "right" }))
      .addNode("after", () => ({ log: "after" }))
      .addEdge(START, "router")
      .addConditionalEdges("router", () => "left")
      .addEdge(["left", "right"], "after")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["left"]);
  });

  it("conditional edges may return several nodes, END, or a path-map key", async () => {
    const graph = new StateGraph(State)
      .addNode("start", () => ({ log: "start" }))
      .addNode("x", () => ({ log: "x" }))
      .addNode("y", () => ({ log: "y" }))
      .addEdge(START, "start")
      .addConditionalEdges("start", () => ["x", "y", END])
      .compile();
    expect((await graph.invoke({})).log).toEqual(["start", "x", "y"]);

    const mapped = new StateGraph(State)
      .addNode("start", () => ({ log: "start" }))
      .addNode("x", () => ({ log: "x" }))
      .addEdge(START, "start")
      .addConditionalEdges("start", (s) => (s.flag === "go" ? "yes" : "no"), { yes: "x", no: END })
      .compile();
    expect((await mapped.invoke({ flag: "go" })).log).toEqual(["start", "x"]);
    expect((await mapped.invoke({ flag: "stop" })).log).toEqual(["start"]);
  });

  it("a conditional edge sees its own node's writes but not those of parallel nodes", async () => {
    let routedOn: number | undefined;
    const graph = new StateGraph(State)
      .addNode("a", () => ({ count: 1 }))
      .addNode("b", () => ({ count: 100 }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addConditionalEdges("a", (s) => {
        routedOn = s.count;
        return END;
      })
      .compile();
    expect((await graph.invoke({ count: 1 })).count).toBe(102);
    expect(routedOn).toBe(2);
  });

  it("conditional loops run until the condition exits", async () => {
    const graph = new StateGraph(State)
      .addNode("tick", () => ({ count: 1 }))
      .addEdge(START, "tick")
      .addConditionalEdges("tick", (s) => (s.count < 5 ? "tick" : END))
      .compile();
    expect((await graph.invoke({})).count).toBe(5);
  });

  it("recursionLimit bounds the number of super-steps (GraphRecursionError)", async () => {
    const loop = new StateGraph(State)
      .addNode("tick", () => ({ count: 1 }))
      .addEdge(START, "tick")
      .addEdge("tick", "tick")
      .compile();
    const error = await loop.invoke({}, { recursionLimit: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphRecursionError);
    expect(error).toMatchObject({ code: "GRAPH_RECURSION_LIMIT" });

    // As in LangGraph.js: a chain of N nodes needs recursionLimit >= N + 1 (the input step counts).
    const chain = new StateGraph(State)
      .addSequence([
        ["n1", () => ({ count: 1 })],
        ["n2", () => ({ count: 1 })],
        ["n3", () => ({ count: 1 })],
      ])
      .addEdge(START, "n1")
      .compile();
    expect((await chain.invoke({}, { recursionLimit: 4 })).count).toBe(3);
    await expect(chain.invoke({}, { recursionLimit: 3 })).rejects.toBeInstanceOf(
      GraphRecursionError,
    );
    // The default limit is 25.
    const long = new StateGraph(State)
      .addNode("tick", () => ({ count: 1 }))
      .addEdge(START, "tick")
      .addConditionalEdges("tick", (s) => (s.count < 24 ? "tick" : END))
      .compile();
    expect((await long.invoke({})).count).toBe(24);
    const tooLong = new StateGraph(State)
      .addNode("tick", () => ({ count: 1 }))
      .addEdge(START, "tick")
      .addConditionalEdges("tick", (s) => (s.count < 25 ? "tick" : END))
      .compile();
    await expect(tooLong.invoke({})).rejects.toBeInstanceOf(GraphRecursionError);
  });

  it("Send fans out to one task per Send, all in the next step, and a reducer gathers them", async () => {
    const Items = Annotation.Root({
      items: Annotation<number[]>(),
      results: Annotation<number[], number[]>({ reducer: concat, default: () => [] }),
    });
    const graph = new StateGraph(Items)
      .addNode("plan", () => ({}))
      .addNode("square", (args: unknown) => ({ results: [(args as { n: number }).n ** 2] }))
      .addNode("total", (s) => ({ results: [s.results.reduce((a, b) => a + b, 0)] }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", (s) => s.items.map((n) => new Send("square", { n })))
      .addEdge("square", "total")
      .compile();
    expect((await graph.invoke({ items: [1, 2, 3] })).results).toEqual([1, 4, 9, 14]);
  });

  it("Command updates and routes in one return value, on top of static edges", async () => {
    const graph = new StateGraph(State)
      .addNode(
        "decide",
        (s) => new Command({ update: { flag: "decided" }, goto: s.count > 0 ? "yes" : "no" }),
        { ends: ["yes", "no"] },
      )
      .addNode("yes", () => ({ log: "yes" }))
      .addNode("no", () => ({ log: "no" }))
      .addNode("always", () => ({ log: "always" }))
      .addEdge(START, "decide")
      .addEdge("decide", "always")
      .compile();
    expect(await graph.invoke({ count: 1 })).toEqual({
      log: ["always", "yes"],
      count: 1,
      flag: "decided",
    });
    expect((await graph.invoke({ count: 0 })).log).toEqual(["always", "no"]);
  });

  it("Command goto accepts Sends", async () => {
    const graph = new StateGraph(State)
      .addNode(
        "fan",
        () =>
          new Command({
            goto: [new Send("echo", { log: "one" }), new Send("echo", { log: "two" })],
          }),
      )
      .addNode("echo", (args: unknown) => ({ log: (args as { log: string }).log }))
      .addEdge(START, "fan")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["one", "two"]);
  });

  it("addSequence, addNode with a record, setEntryPoint/setFinishPoint", async () => {
    const graph = new StateGraph(State)
      .addSequence({ s1: () => ({ log: "s1" }), s2: () => ({ log: "s2" }) })
      .addNode({ s3: () => ({ log: "s3" }) })
      .addEdge("s2", "s3")
      .setEntryPoint("s1")
      .setFinishPoint("s3")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["s1", "s2", "s3"]);
  });

  it("a node may return nothing, and async nodes and routers work like sync ones", async () => {
    const graph = new StateGraph(State)
      .addNode("quiet", () => undefined)
      .addNode("slow", async () => {
        await new Promise((r) => setTimeout(r, 1));
        return { log: "slow" };
      })
      .addEdge(START, "quiet")
      .addConditionalEdges("quiet", async () => "slow")
      .compile();
    expect(await graph.invoke({ flag: "x" })).toEqual({ log: ["slow"], count: 0, flag: "x" });
  });

  it("a 10,000-step run completes (the loop keeps no per-step state)", async () => {
    const graph = new StateGraph(State)
      .addNode("tick", () => ({ count: 1 }))
      .addEdge(START, "tick")
      .addConditionalEdges("tick", (s) => (s.count < 10_000 ? "tick" : END))
      .compile();
    expect((await graph.invoke({}, { recursionLimit: 20_000 })).count).toBe(10_000);
  });
});
