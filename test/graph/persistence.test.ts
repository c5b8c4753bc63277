import { describe, expect, it } from "vitest";
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  isGraphInterrupt,
  KeelError,
  MemorySaver,
  START,
  StateGraph,
  type StateSnapshot,
} from "../../src/index.js";

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  draft: Annotation<string>(),
  approved: Annotation<boolean>(),
});
type S = typeof State.State;

const thread = (id: string) => ({ configurable: { thread_id: id } });

async function history(
  graph: { getStateHistory(c: object): AsyncGenerator<StateSnapshot<S>> },
  id: string,
) {
  const out: StateSnapshot<S>[] = [];
  for await (const snapshot of graph.getStateHistory(thread(id))) out.push(snapshot);
  return out;
}

describe("interrupt() and resume with Command", () => {
  function reviewGraph(calls: string[]) {
    return new StateGraph(State)
      .addNode("write", () => {
        calls.push("write");
        return { draft: "v1", log: ["write"] };
      })
      .addNode("review", (s) => {
        calls.push("review");
        const answer = interrupt<{ draft: string }, string>({ draft: s.draft });
        return { approved: answer === "yes", log: [`review:${answer}`] };
      })
      .addNode("audit", () => {
        calls.push("audit");
        return { log: ["audit"] };
      })
      .addEdge(START, "write")
      .addEdge("write", "review")
      .addEdge("write", "audit")
      .addEdge("review", END)
      .compile({ checkpointer: new MemorySaver() });
  }

  it("pauses, reports the interrupt, keeps finished parallel work, and resumes without rerunning it", async () => {
    const calls: string[] = [];
    const graph = reviewGraph(calls);
    const paused = await graph.invoke({}, thread("r1"));
    expect(paused[INTERRUPT]).toEqual([{ id: expect.any(String), value: { draft: "v1" } }]);
    expect(paused.log).toEqual(["write", "audit"]);

    const state = await graph.getState(thread("r1"));
    // The finished "audit" is shown in the values, and only "review" is still to run.
    expect(state.next).toEqual(["review"]);
    expect(state.tasks.find((t) => t.name === "review")?.interrupts[0]?.value).toEqual({
      draft: "v1",
    });
    expect(state.tasks.find((t) => t.name === "audit")?.result).toEqual({ log: ["audit"] });

    const done = await graph.invoke(new Command({ resume: "yes" }), thread("r1"));
    expect(done).toEqual({ log: ["write", "audit", "review:yes"], draft: "v1", approved: true });
    expect(calls).toEqual(["write", "audit", "review", "review"]);
    expect((await graph.getState(thread("r1"))).next).toEqual([]);
  });

  it("several interrupts in one node are answered one resume at a time", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", () => {
        const first = interrupt<string, string>("first?");
        const second = interrupt<string, string>("second?");
        return { log: [first, second] };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    expect((await graph.invoke({}, thread("m")))[INTERRUPT]?.[0]?.value).toBe("first?");
    expect(
      (await graph.invoke(new Command({ resume: "A" }), thread("m")))[INTERRUPT]?.[0]?.value,
    ).toBe("second?");
    expect(await graph.invoke(new Command({ resume: "B" }), thread("m"))).toEqual({
      log: ["A", "B"],
    });
  });

  it("resumes parallel interrupts by interrupt id", async () => {
    const graph = new StateGraph(State)
      .addNode("left", () => ({ log: [`left:${interrupt("L")}`] }))
      .addNode("right", () => ({ log: [`right:${interrupt("R")}`] }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({}, thread("p"));
    const ids = Object.fromEntries((paused[INTERRUPT] ?? []).map((i) => [i.value as string, i.id]));
    const done = await graph.invoke(
      new Command({ resume: { [ids.L!]: 1, [ids.R!]: 2 } }),
      thread("p"),
    );
    expect(done.log).toEqual(["left:1", "right:2"]);
  });

  it("interrupt() without a checkpointer is a clear error", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ draft: interrupt("?") as string }))
      .addEdge(START, "ask")
      .compile();
    await expect(graph.invoke({})).rejects.toMatchObject({ code: "CHECKPOINTER_REQUIRED" });
  });

  it("a plain function returning a promise can interrupt() after an await", async () => {
    // Not an `async function`: a wrapper arrow around an async helper.
    const review = async (s: S, fetchDraft: () => Promise<string>) => {
      const draft = await fetchDraft();
      const answer = interrupt<{ draft: string }, string>({ draft });
      return { draft, approved: answer === "yes", log: [`review:${s.log.length}`] };
    };
    const graph = new StateGraph(State)
      .addNode("review", (s) => review(s, async () => "v2"))
      .addNode("send", () => ({ log: ["sent"] }))
      .addEdge(START, "review")
      .addEdge("review", "send")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({}, thread("w"));
    expect(paused[INTERRUPT]).toEqual([{ id: expect.any(String), value: { draft: "v2" } }]);
    const state = await graph.getState(thread("w"));
    expect(state.next).toEqual(["review"]);
    expect(state.tasks[0]?.interrupts[0]?.value).toEqual({ draft: "v2" });
    expect(await graph.invoke(new Command({ resume: "yes" }), thread("w"))).toEqual({
      draft: "v2",
      approved: true,
      log: ["review:0", "sent"],
    });
  });

  it("interrupt() outside a node, or lost across an await, is a clear error, never a pause", async () => {
    expect(() => interrupt("?")).toThrow(
      expect.objectContaining({ code: "INTERRUPT_OUTSIDE_NODE" }) as Error,
    );
    // Without a checkpointer a plain function is not followed across its awaits.
    const plain = new StateGraph(State)
      .addNode("ask", () => Promise.resolve().then(() => ({ draft: interrupt("?") as string })))
      .addEdge(START, "ask")
      .compile();
    await expect(plain.invoke({})).rejects.toMatchObject({ code: "INTERRUPT_OUTSIDE_NODE" });
    // An error that merely has the code, without the interrupts, fails the node.
    const forged = new StateGraph(State)
      .addNode("ask", async () => {
        throw new KeelError("GRAPH_INTERRUPT", "not a real interrupt");
      })
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(START, "ask")
      .addEdge("ask", "after")
      .compile({ checkpointer: new MemorySaver() });
    await expect(forged.invoke({}, thread("forged"))).rejects.toThrow("not a real interrupt");
    expect(isGraphInterrupt(new KeelError("GRAPH_INTERRUPT", "x"))).toBe(false);
    expect((await forged.getState(thread("forged"))).next).toEqual(["ask"]);
  });

  it("interruptBefore and interruptAfter pause around nodes; invoke(null) continues", async () => {
    const builder = () =>
      new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .addEdge("a", "b");
    const before = builder().compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
    expect(await before.invoke({}, thread("b"))).toEqual({ log: ["a"], [INTERRUPT]: [] });
    expect((await before.getState(thread("b"))).next).toEqual(["b"]);
    expect(await before.invoke(null, thread("b"))).toEqual({ log: ["a", "b"] });

    const after = builder().compile({ checkpointer: new MemorySaver(), interruptAfter: ["a"] });
    expect(await after.invoke({}, thread("a"))).toEqual({ log: ["a"], [INTERRUPT]: [] });
    expect(await after.invoke(null, thread("a"))).toEqual({ log: ["a", "b"] });

    // After the last node too, as LangGraph.js: the caller sees the pause it asked for.
    const last = builder().compile({ checkpointer: new MemorySaver(), interruptAfter: ["b"] });
    expect(await last.invoke({}, thread("last"))).toEqual({ log: ["a", "b"], [INTERRUPT]: [] });
    expect((await last.getState(thread("last"))).next).toEqual([]);
    expect(await last.invoke(null, thread("last"))).toEqual({ log: ["a", "b"] });
  });
});

describe("history, threads, updateState and time travel", () => {
  const build = (calls: string[] = []) =>
    new StateGraph(State)
      .addNode("one", () => {
        calls.push("one");
        return { log: ["one"] };
      })
      .addNode("two", (s) => {
        calls.push("two");
        return { log: [`two after ${s.log.length}`] };
      })
      .addEdge(START, "one")
      .addEdge("one", "two")
      .compile({ checkpointer: new MemorySaver() });

  it("records one checkpoint per step with LangGraph's metadata (input -1, loop 0…)", async () => {
    const graph = build();
    await graph.invoke({ draft: "d" }, thread("h"));
    const snapshots = await history(graph, "h");
    expect(snapshots.map((s) => [s.metadata?.source, s.metadata?.step, s.next])).toEqual([
      ["loop", 2, []],
      ["loop", 1, ["two"]],
      ["loop", 0, ["one"]],
      ["input", -1, ["__start__"]],
    ]);
    expect(snapshots[0]?.metadata?.writes).toEqual({ two: { log: ["two after 1"] } });
    expect(snapshots[1]?.values).toEqual({ log: ["one"], draft: "d" });
    expect(snapshots[0]?.parentConfig?.configurable?.checkpoint_id).toBe(
      snapshots[1]?.config.configurable?.checkpoint_id,
    );
  });

  it("a thread continues: a second input runs on the saved state", async () => {
    const graph = build();
    await graph.invoke({}, thread("c"));
    const second = await graph.invoke({ draft: "again" }, thread("c"));
    expect(second.log).toEqual(["one", "two after 1", "one", "two after 3"]);
    const latest = await graph.getState(thread("c"));
    expect(latest.metadata?.step).toBe(6);
  });

  it("updateState writes as a node, and its edges decide what runs next", async () => {
    const graph = build();
    await graph.invoke({}, thread("u"));
    const config = await graph.updateState(thread("u"), { log: ["manual"] }, "one");
    expect(config.configurable?.checkpoint_id).toBeDefined();
    const state = await graph.getState(thread("u"));
    expect(state.metadata?.source).toBe("update");
    expect(state.next).toEqual(["two"]);
    expect((await graph.invoke(null, thread("u"))).log).toEqual([
      "one",
      "two after 1",
      "manual",
      "two after 3",
    ]);
    await expect(graph.updateState(thread("u"), { log: [] }, "ghost")).rejects.toMatchObject({
      code: "NODE_NOT_FOUND",
    });
  });

  it("invoking from a past checkpoint forks: later steps run again on a new branch", async () => {
    const calls: string[] = [];
    const graph = build(calls);
    await graph.invoke({}, thread("f"));
    const afterOne = (await history(graph, "f")).find((s) => s.next[0] === "two")!;
    calls.length = 0;
    const forked = await graph.invoke(null, afterOne.config);
    expect(calls).toEqual(["two"]);
    expect(forked.log).toEqual(["one", "two after 1"]);
    const snapshots = await history(graph, "f");
    expect(snapshots[0]?.metadata?.source).toBe("loop");
    expect(snapshots[1]?.metadata?.source).toBe("fork");
    expect(snapshots[1]?.parentConfig?.configurable?.checkpoint_id).toBe(
      afterOne.config.configurable?.checkpoint_id,
    );
  });

  it("a resume addressed to a past interrupted checkpoint is delivered there", async () => {
    let asks = 0;
    const graph = new StateGraph(State)
      .addNode("ask", () => {
        asks++;
        return { draft: interrupt<string, string>("draft?") };
      })
      .addNode("after", (s) => ({ log: [`after:${s.draft}`] }))
      .addEdge(START, "ask")
      .addEdge("ask", "after")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("past-resume"));
    const paused = (await graph.getState(thread("past-resume"))).config;
    // The thread moves on without answering; then the old interrupt is answered by its checkpoint.
    await graph.invoke({ log: ["new input"] }, thread("past-resume"));
    const done = await graph.invoke(new Command({ resume: "late" }), paused);
    expect(done).toEqual({ draft: "late", log: ["after:late"] });
    expect(asks).toBe(3);
    // A new branch from the paused checkpoint, not a fork copy of it.
    const newest = await history(graph, "past-resume");
    expect(newest.slice(0, 2).map((s) => [s.metadata?.source, s.next])).toEqual([
      ["loop", []],
      ["loop", ["after"]],
    ]);
    expect(newest[1]?.parentConfig?.configurable?.checkpoint_id).toBe(
      paused.configurable?.checkpoint_id,
    );
  });

  it("updateState on a past checkpoint branches history", async () => {
    const graph = build();
    await graph.invoke({}, thread("b"));
    const afterOne = (await history(graph, "b")).find((s) => s.next[0] === "two")!;
    await graph.updateState(afterOne.config, { draft: "edited" });
    const result = await graph.invoke(null, thread("b"));
    expect(result).toEqual({ log: ["one", "two after 1"], draft: "edited" });
  });

  it("a missing thread id or checkpoint is a clear error", async () => {
    const graph = build();
    await expect(graph.invoke({})).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(
      graph.invoke(null, { configurable: { thread_id: "x", checkpoint_id: "nope" } }),
    ).rejects.toMatchObject({ code: "CHECKPOINT_NOT_FOUND" });
    const plain = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile();
    await expect(plain.getState(thread("x"))).rejects.toMatchObject({
      code: "CHECKPOINTER_REQUIRED",
    });
  });

  it("after a node error, resuming runs only the failed node; the finished ones are reused", async () => {
    const calls: string[] = [];
    let fail = true;
    const graph = new StateGraph(State)
      .addNode("steady", () => {
        calls.push("steady");
        return { log: ["steady"] };
      })
      .addNode("flaky", () => {
        calls.push("flaky");
        if (fail) throw new Error("flaky failed");
        return { log: ["flaky"] };
      })
      .addEdge(START, "steady")
      .addEdge(START, "flaky")
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({}, thread("e"))).rejects.toThrow("flaky failed");
    const stopped = await graph.getState(thread("e"));
    expect(stopped.values.log).toEqual(["steady"]);
    expect(stopped.next).toEqual(["flaky"]);
    expect(stopped.tasks.find((t) => t.name === "flaky")?.error).toMatchObject({
      message: "flaky failed",
    });
    fail = false;
    expect((await graph.invoke(null, thread("e"))).log).toEqual(["flaky", "steady"]);
    expect(calls).toEqual(["flaky", "steady", "flaky"]);
  });

  it("updateState without asNode after a parallel step is refused, naming the candidates", async () => {
    const calls: string[] = [];
    const node = (name: string) => () => {
      calls.push(name);
      return { log: [name] };
    };
    const graph = new StateGraph(State)
      .addNode("a", node("a"))
      .addNode("b", node("b"))
      .addNode("c", node("c"))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("a", "c")
      .addEdge("b", "c")
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["c"] });
    await graph.invoke({}, thread("amb"));
    await expect(graph.updateState(thread("amb"), { draft: "x" })).rejects.toMatchObject({
      name: "InvalidUpdateError",
      code: "INVALID_UPDATE",
      details: { candidates: ["a", "b"] },
    });
    // Nothing was written: the entry nodes do not run again.
    expect((await graph.getState(thread("amb"))).next).toEqual(["c"]);
    expect(await graph.invoke(null, thread("amb"))).toEqual({ log: ["a", "b", "c"] });
    expect(calls).toEqual(["a", "b", "c"]);
    // With asNode it is accepted.
    await graph.updateState(thread("amb"), { draft: "x" }, "c");
    expect((await graph.getState(thread("amb"))).values.draft).toBe("x");
  });

  it("updateState on an empty thread acts as the input (START's edges run next)", async () => {
    const graph = build();
    await graph.updateState(thread("empty"), { draft: "seeded" });
    const state = await graph.getState(thread("empty"));
    expect(state.values).toEqual({ log: [], draft: "seeded" });
    expect(state.next).toEqual(["one"]);
    expect((await graph.invoke(null, thread("empty"))).log).toEqual(["one", "two after 1"]);
  });
});

describe("durability", () => {
  /** A MemorySaver whose n-th `put` fails, like a process that dies while writing. */
  class CrashingSaver extends MemorySaver {
    private puts = 0;
    constructor(private readonly failOnPut: number) {
      super();
    }
    override async put(...args: Parameters<MemorySaver["put"]>) {
      this.puts += 1;
      if (this.puts === this.failOnPut) throw new Error("disk gone");
      return super.put(...args);
    }
  }

  it("a run that stopped after saving its input applies that input when resumed", async () => {
    const saver = new CrashingSaver(2);
    const graph = new StateGraph(State)
      .addNode("one", (s) => ({ log: [`one:${s.draft}`] }))
      .addEdge(START, "one")
      .compile({ checkpointer: saver });
    await expect(graph.invoke({ draft: "kept" }, thread("crash"))).rejects.toThrow("disk gone");
    expect((await graph.getState(thread("crash"))).next).toEqual(["__start__"]);
    expect(await graph.invoke(null, thread("crash"))).toEqual({ log: ["one:kept"], draft: "kept" });
  });

  it("a run that stopped before a step's checkpoint resumes from the last one without losing finished tasks", async () => {
    const calls: string[] = [];
    const saver = new CrashingSaver(4);
    const graph = new StateGraph(State)
      .addNode("a", () => {
        calls.push("a");
        return { log: ["a"] };
      })
      .addNode("b", () => {
        calls.push("b");
        return { log: ["b"] };
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: saver });
    // puts: input, step 0, step 1 (after a), step 2 (after b) fails.
    await expect(graph.invoke({}, thread("mid"))).rejects.toThrow("disk gone");
    expect(await graph.invoke(null, thread("mid"))).toEqual({ log: ["a", "b"] });
    // b's writes were saved before the failed checkpoint, so b did not run again.
    expect(calls).toEqual(["a", "b"]);
  });
});

describe("the durability option of invoke", () => {
  /** A MemorySaver that logs its calls and can make `put` slow. */
  class LoggingSaver extends MemorySaver {
    readonly calls: string[] = [];
    constructor(private readonly putDelayMs = 0) {
      super();
    }
    override async put(...args: Parameters<MemorySaver["put"]>) {
      this.calls.push(`put:${args[2].step}:${args[0].durability ?? "-"}`);
      if (this.putDelayMs > 0) await new Promise((r) => setTimeout(r, this.putDelayMs));
      return super.put(...args);
    }
    override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
      this.calls.push(`writes:${args[1].map(([channel]) => channel).join(",")}`);
      return super.putWrites(...args);
    }
  }

  const chain = (saver: MemorySaver, seen: string[] = []) =>
    new StateGraph(State)
      .addNode("one", () => {
        seen.push("one");
        return { log: ["one"] };
      })
      .addNode("two", () => {
        seen.push("two");
        return { log: ["two"] };
      })
      .addNode("three", () => ({ log: ["three"] }))
      .addEdge(START, "one")
      .addEdge("one", "two")
      .addEdge("two", "three")
      .compile({ checkpointer: saver });

  it("sync saves every step: a checkpoint, then the writes of the tasks that run from it (START's too)", async () => {
    const saver = new LoggingSaver();
    await chain(saver).invoke({}, { ...thread("sync"), durability: "sync" });
    expect(saver.calls).toEqual([
      "put:-1:sync",
      "writes:branch:to:one",
      "put:0:sync",
      "writes:log,branch:to:two",
      "put:1:sync",
      "writes:log,branch:to:three",
      "put:2:sync",
      "writes:log",
      "put:3:sync",
    ]);
  });

  it("async runs the next step without waiting for the save, and has saved everything when invoke returns", async () => {
    const saver = new LoggingSaver(5);
    const seen: string[] = [];
    const graph = chain(saver, seen);
    const running = graph.invoke({}, { ...thread("async"), durability: "async" });
    // Steps do not wait for the slow saves: all nodes ran long before the saves finish.
    await new Promise((r) => setTimeout(r, 2));
    expect(seen).toEqual(["one", "two"]);
    expect((await running).log).toEqual(["one", "two", "three"]);
    expect((await history(graph, "async")).map((s) => s.metadata?.step)).toEqual([3, 2, 1, 0, -1]);
  });

  it("exit saves only the final checkpoint, and the state of a run that paused or failed", async () => {
    const saver = new LoggingSaver();
    const graph = chain(saver);
    expect((await graph.invoke({}, { ...thread("exit"), durability: "exit" })).log).toEqual([
      "one",
      "two",
      "three",
    ]);
    expect(saver.calls).toEqual(["put:3:sync"]);
    const states = await history(graph, "exit");
    expect(states.map((s) => [s.metadata?.step, s.values.log, s.next])).toEqual([
      [3, ["one", "two", "three"], []],
    ]);

    let attempts = 0;
    const failing = new StateGraph(State)
      .addNode("ok", () => ({ log: ["ok"] }))
      .addNode("flaky", () => {
        attempts += 1;
        if (attempts === 1) throw new Error("first time fails");
        return { log: ["flaky"] };
      })
      .addNode("other", () => ({ log: ["other"] }))
      .addEdge(START, "ok")
      .addEdge("ok", "flaky")
      .addEdge("ok", "other")
      .compile({ checkpointer: new MemorySaver() });
    const config = { ...thread("exit-fail"), durability: "exit" as const };
    await expect(failing.invoke({}, config)).rejects.toThrow("first time fails");
    // The failed step is saved with the finished task's writes: resuming runs only `flaky`.
    const paused = await failing.getState(thread("exit-fail"));
    expect(paused.next).toEqual(["flaky"]);
    expect((await failing.invoke(null, config)).log).toEqual(["ok", "flaky", "other"]);
    expect(attempts).toBe(2);
  });

  it("exit keeps an interrupted run resumable", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ draft: interrupt("title?") as string }))
      .addNode("done", (s) => ({ log: [`done:${s.draft}`] }))
      .addEdge(START, "ask")
      .addEdge("ask", "done")
      .compile({ checkpointer: new MemorySaver() });
    const config = { ...thread("exit-ask"), durability: "exit" as const };
    const paused = await graph.invoke({}, config);
    expect(paused[INTERRUPT]?.[0]?.value).toBe("title?");
    expect((await graph.invoke(new Command({ resume: "T" }), config)).log).toEqual(["done:T"]);
  });

  it("an unknown mode is refused", async () => {
    await expect(
      chain(new MemorySaver()).invoke(
        {},
        {
          ...thread("bad"),
          durability: "sometimes" as unknown as "sync",
        },
      ),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

describe("task writes and task ids", () => {
  it("put receives only the channels the step changed", async () => {
    const puts: Array<[number, string[]]> = [];
    class Spy extends MemorySaver {
      override async put(...args: Parameters<MemorySaver["put"]>) {
        puts.push([args[2].step, Object.keys(args[3] ?? {}).sort()]);
        return super.put(...args);
      }
    }
    const Doc = Annotation.Root({ big: Annotation<string>(), n: Annotation<number>() });
    const graph = new StateGraph(Doc)
      .addSequence([
        ["a", (s) => ({ n: s.n + 1 })],
        ["b", (s) => ({ n: s.n + 1 })],
      ])
      .addEdge(START, "a")
      .compile({ checkpointer: new Spy() });
    await graph.invoke({ big: "x".repeat(10_000), n: 0 }, thread("delta"));
    // The large value is handed over once, when the input is applied; each step after adds only
    // what it changed (the counter and the next node's trigger).
    expect(puts).toEqual([
      [-1, []],
      [0, ["big", "branch:to:a", "n"]],
      [1, ["branch:to:b", "n"]],
      [2, ["n"]],
    ]);
  });

  it("a finished task's writes are saved at once, before the other tasks of its step finish", async () => {
    const events: string[] = [];
    class Spy extends MemorySaver {
      override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
        events.push(`saved:${args[1].map(([c]) => c).join(",")}`);
        return super.putWrites(...args);
      }
    }
    let release: () => void = () => {};
    const graph = new StateGraph(State)
      .addNode("fast", () => {
        events.push("fast done");
        return { log: ["fast"] };
      })
      .addNode("slow", async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        events.push("slow done");
        return { draft: "slow" };
      })
      .addEdge(START, "fast")
      .addEdge(START, "slow")
      .compile({ checkpointer: new Spy() });
    const running = graph.invoke({}, thread("parallel"));
    await new Promise((r) => setTimeout(r, 5));
    const start = "saved:branch:to:fast,branch:to:slow";
    expect(events).toEqual([start, "fast done", "saved:log"]);
    release();
    await running;
    expect(events).toEqual([start, "fast done", "saved:log", "slow done", "saved:draft"]);
  });

  it("a node sees its deterministic task id in configurable.__pregel_task_id, as in LangGraph.js", async () => {
    const ids: string[] = [];
    const graph = new StateGraph(State)
      .addNode("ask", (_s, config) => {
        ids.push(String(config?.configurable?.__pregel_task_id));
        return { draft: interrupt("?") as string };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("ids"));
    const pending = await graph.getState(thread("ids"));
    await graph.invoke(new Command({ resume: "x" }), thread("ids"));
    expect(ids).toHaveLength(2);
    // The same task (re-run on resume) has the same id, the one getState reports.
    expect(ids[0]).toBe(ids[1]);
    expect(ids[0]).toBe(pending.tasks[0]?.id);
  });
});

describe("checkpoint ids", () => {
  it("are UUIDv7 strings that sort in the order they were made, even within one millisecond", async () => {
    const { newCheckpointId } = await import("../../src/checkpoint/index.js");
    const ids = Array.from({ length: 5000 }, () => newCheckpointId());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
