import { describe, expect, it } from "vitest";
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  MemorySaver,
  Send,
  START,
  StateGraph,
} from "../../src/index.js";

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  n: Annotation<number>(),
});
const thread = (id: string) => ({ configurable: { thread_id: id } });

async function collect(stream: Promise<AsyncIterableIterator<unknown>>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of await stream) chunks.push(chunk);
  return chunks;
}

describe("streaming", () => {
  const graph = new StateGraph(State)
    .addNode("a", (s) => ({ n: s.n + 1, log: ["a"] }))
    .addNode("b", (s) => ({ n: s.n * 10 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile();

  it("values: the whole state after the input and after each step", async () => {
    expect(await collect(graph.stream({ n: 1 }, { streamMode: "values" }))).toEqual([
      { log: [], n: 1 },
      { log: ["a"], n: 2 },
      { log: ["a"], n: 20 },
    ]);
  });

  it("updates: one { node: update } per task", async () => {
    expect(await collect(graph.stream({ n: 1 }, { streamMode: "updates" }))).toEqual([
      { a: { n: 2, log: ["a"] } },
      { b: { n: 20 } },
    ]);
  });

  it("debug: task and task_result events with deterministic ids", async () => {
    const chunks = (await collect(graph.stream({ n: 1 }, { streamMode: "debug" }))) as Array<{
      type: string;
      step: number;
      payload: { name: string; id: string };
    }>;
    expect(chunks.map((c) => [c.type, c.step, c.payload.name])).toEqual([
      ["task", 1, "a"],
      ["task_result", 1, "a"],
      ["task", 2, "b"],
      ["task_result", 2, "b"],
    ]);
    expect(chunks[0]?.payload.id).toBe(chunks[1]?.payload.id);
  });

  it("several modes at once yield [mode, chunk] pairs", async () => {
    const chunks = await collect(graph.stream({ n: 1 }, { streamMode: ["updates", "values"] }));
    expect(chunks).toEqual([
      ["values", { log: [], n: 1 }],
      ["updates", { a: { n: 2, log: ["a"] } }],
      ["values", { log: ["a"], n: 2 }],
      ["updates", { b: { n: 20 } }],
      ["values", { log: ["a"], n: 20 }],
    ]);
  });

  it("errors reach the reader of the stream", async () => {
    const failing = new StateGraph(State)
      .addNode("x", () => {
        throw new Error("nope");
      })
      .addEdge(START, "x")
      .compile();
    await expect(collect(failing.stream({ n: 1 }))).rejects.toThrow("nope");
  });

  it("a reader that stops early stops the run", async () => {
    let runs = 0;
    const endless = new StateGraph(State)
      .addNode("tick", async () => {
        runs += 1;
        return { n: runs };
      })
      .addEdge(START, "tick")
      .addEdge("tick", "tick")
      .compile();
    for await (const chunk of await endless.stream({ n: 0 }, { recursionLimit: 1000 })) {
      if ((chunk as { tick?: { n: number } }).tick?.n === 3) break;
    }
    await new Promise((r) => setTimeout(r, 20));
    const after = runs;
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(after);
    expect(runs).toBeLessThan(10);
  });

  it("an interrupt shows in updates as __interrupt__", async () => {
    const paused = new StateGraph(State)
      .addNode("ask", () => ({ n: interrupt("?") as number }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = await collect(
      paused.stream({ n: 0 }, { ...thread("s"), streamMode: "updates" }),
    );
    expect(chunks).toEqual([{ [INTERRUPT]: [{ id: expect.any(String), value: "?" }] }]);
  });
});

describe("more of the run API", () => {
  it("updates stream in the order tasks finish; writes still apply in name order", async () => {
    const graph = new StateGraph(State)
      .addNode("aaa_slow", async () => {
        await new Promise((r) => setTimeout(r, 15));
        return { log: ["slow"] };
      })
      .addNode("zzz_fast", async () => ({ log: ["fast"] }))
      .addEdge(START, "aaa_slow")
      .addEdge(START, "zzz_fast")
      .compile();
    const chunks = await collect(graph.stream({ n: 0 }, { streamMode: "updates" }));
    expect(chunks.map((c) => Object.keys(c as object)[0])).toEqual(["zzz_fast", "aaa_slow"]);
    expect((await graph.invoke({ n: 0 })).log).toEqual(["slow", "fast"]);
  });

  it("a Command as input updates a thread and routes it", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", (s) => ({ log: [`b saw ${s.n}`] }))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({ n: 1 }, thread("cmd"));
    const result = await graph.invoke(new Command({ update: { n: 7 }, goto: "b" }), thread("cmd"));
    expect(result).toEqual({ n: 7, log: ["a", "b saw 7"] });
  });

  it("interruptBefore can be given per call, and '*' pauses before every node", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: new MemorySaver() });
    const config = { ...thread("star"), interruptBefore: "*" as const };
    expect((await graph.invoke({ n: 0 }, config)).log).toEqual([]);
    expect((await graph.invoke(null, config)).log).toEqual(["a"]);
    expect((await graph.invoke(null, config)).log).toEqual(["a", "b"]);
  });

  it("debug with a checkpointer reports each checkpoint", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = (await collect(
      graph.stream({ n: 0 }, { ...thread("dbg"), streamMode: "debug" }),
    )) as Array<{ type: string; step: number; payload: { next?: string[] } }>;
    expect(chunks.map((c) => [c.type, c.step])).toEqual([
      ["checkpoint", -1],
      ["checkpoint", 0],
      ["task", 1],
      ["task_result", 1],
      ["checkpoint", 1],
    ]);
    expect(chunks[0]?.payload.next).toEqual(["__start__"]);
    expect(chunks[1]?.payload.next).toEqual(["a"]);
  });

  it("a value that cannot be saved fails clearly when the checkpoint is written", async () => {
    const Loose = Annotation.Root({ thing: Annotation<unknown>() });
    const graph = new StateGraph(Loose)
      .addNode("a", () => ({ thing: () => 1 }))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({ thing: 1 }, thread("fn"))).rejects.toMatchObject({
      code: "CHECKPOINT_NOT_SERIALIZABLE",
    });
  });
});

describe("retry policies", () => {
  it("retries a failing node until it succeeds", async () => {
    let attempts = 0;
    const graph = new StateGraph(State)
      .addNode(
        "flaky",
        () => {
          attempts += 1;
          if (attempts < 3) throw new Error("transient");
          return { n: attempts };
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false } },
      )
      .addEdge(START, "flaky")
      .compile();
    expect((await graph.invoke({ n: 0 })).n).toBe(3);
  });

  it("gives up after maxAttempts, and never retries what retryOn refuses", async () => {
    let attempts = 0;
    const always = new StateGraph(State)
      .addNode(
        "down",
        async () => {
          attempts += 1;
          throw new Error("still down");
        },
        { retryPolicy: { maxAttempts: 2, initialInterval: 1 } },
      )
      .addEdge(START, "down")
      .compile();
    await expect(always.invoke({ n: 0 })).rejects.toThrow("still down");
    expect(attempts).toBe(2);

    attempts = 0;
    const refused = new StateGraph(State)
      .addNode(
        "bug",
        () => {
          attempts += 1;
          throw new TypeError("a bug, not a hiccup");
        },
        { retryPolicy: { maxAttempts: 5, initialInterval: 1 } },
      )
      .addEdge(START, "bug")
      .compile();
    await expect(refused.invoke({ n: 0 })).rejects.toBeInstanceOf(TypeError);
    expect(attempts).toBe(1);
  });
});

describe("cancellation", () => {
  it("an AbortSignal stops the run between and during steps", async () => {
    const controller = new AbortController();
    let runs = 0;
    const graph = new StateGraph(State)
      .addNode("slow", async () => {
        runs += 1;
        if (runs === 2) controller.abort();
        await new Promise((r) => setTimeout(r, 20));
        return { n: runs };
      })
      .addEdge(START, "slow")
      .addEdge("slow", "slow")
      .compile();
    await expect(
      graph.invoke({ n: 0 }, { signal: controller.signal, recursionLimit: 100 }),
    ).rejects.toMatchObject({ code: "ABORTED" });
    expect(runs).toBe(2);
    await expect(graph.invoke({ n: 0 }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: "ABORTED",
    });
  });
});

describe("subgraphs", () => {
  const Inner = Annotation.Root({
    log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    n: Annotation<number>(),
    scratch: Annotation<string>(),
  });

  it("a compiled graph runs as a node; the keys it shares with the parent flow back", async () => {
    const inner = new StateGraph(Inner)
      .addNode("double", (s) => ({ n: s.n * 2, scratch: "private", log: ["inner"] }))
      .addEdge(START, "double")
      .compile();
    const outer = new StateGraph(State)
      .addNode("before", () => ({ log: ["before"] }))
      .addNode("child", inner)
      .addEdge(START, "before")
      .addEdge("before", "child")
      .addEdge("child", END)
      .compile();
    // The subgraph returns its whole state (log included), which the parent reducer appends.
    expect(await outer.invoke({ n: 4 })).toEqual({ n: 8, log: ["before", "before", "inner"] });
  });

  it("an interrupt inside a subgraph pauses the parent and resumes inside the subgraph", async () => {
    let innerCalls = 0;
    const inner = new StateGraph(Inner)
      .addNode("prepare", () => {
        innerCalls += 1;
        return { scratch: "prepared" };
      })
      .addNode("ask", (s) => ({ n: (interrupt(`approve ${s.scratch}?`) as number) + s.n }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "ask")
      .compile();
    const outer = new StateGraph(State)
      .addNode("child", inner)
      .addEdge(START, "child")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await outer.invoke({ n: 1 }, thread("sub"));
    expect(paused[INTERRUPT]?.[0]?.value).toBe("approve prepared?");
    const done = await outer.invoke(new Command({ resume: 41 }), thread("sub"));
    expect(done.n).toBe(42);
    expect(innerCalls).toBe(1);
    // The parent's history holds the parent's checkpoints only (the child's live in its namespace).
    const sources: string[] = [];
    for await (const snapshot of outer.getStateHistory(thread("sub"))) {
      expect(snapshot.config.configurable?.checkpoint_ns).toBe("");
      sources.push(`${snapshot.metadata?.source}:${snapshot.metadata?.step}`);
    }
    expect(sources).toEqual(["loop:1", "loop:0", "input:-1"]);
  });

  it("Command.PARENT routes from inside a subgraph to the parent's nodes", async () => {
    const inner = new StateGraph(Inner)
      .addNode(
        "escalate",
        () => new Command({ graph: Command.PARENT, goto: "human", update: { log: ["escalated"] } }),
      )
      .addEdge(START, "escalate")
      .compile();
    const outer = new StateGraph(State)
      .addNode("child", inner, { ends: ["human"] })
      .addNode("human", () => ({ log: ["human"] }))
      .addEdge(START, "child")
      .compile();
    expect((await outer.invoke({ n: 0 })).log).toEqual(["escalated", "human"]);
  });

  it("Send fan-out to a subgraph", async () => {
    const Worker = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      item: Annotation<number>(),
    });
    const inner = new StateGraph(Worker)
      .addNode("echo", (s) => ({ log: [`got ${s.item}`] }))
      .addEdge(START, "echo")
      .compile();
    const outer = new StateGraph(State)
      .addNode("plan", () => ({}))
      .addNode("child", inner)
      .addEdge(START, "plan")
      .addConditionalEdges("plan", () => [
        new Send("child", { item: 1 }),
        new Send("child", { item: 2 }),
      ])
      .compile();
    expect((await outer.invoke({ n: 0 })).log).toEqual(["got 1", "got 2"]);
  });
});
