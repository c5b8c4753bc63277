/** interrupt() resumed with Command({ resume }), static interrupts, and their snapshots. */
import type { GraphApi } from "../api.js";
import { collectStream, historyView, outcome, snapshotView, thread } from "../harness.js";
import { counterState, num, pause } from "./common.js";

export const interruptPrograms = {
  /** A node asks, the caller sees the question, resumes with an answer, the node reruns. */
  async interruptAndResume(api: GraphApi) {
    let askRuns = 0;
    const graph = new api.StateGraph(counterState(api))
      .addNode("before", () => ({ log: ["before"] }))
      .addNode("ask", () => {
        askRuns++;
        const answer = api.interrupt({ question: "approve?" });
        return { log: [`answer:${String(answer)}`] };
      })
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(api.START, "before")
      .addEdge("before", "ask")
      .addEdge("ask", "after")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("interrupt-1");
    const paused = await graph.invoke({ n: 1 }, config);
    const pausedState = snapshotView(await graph.getState(config));
    const resumed = await graph.invoke(new api.Command({ resume: "yes" }), config);
    return {
      paused,
      pausedIsInterrupted: api.isInterrupted(paused),
      interruptKey: api.INTERRUPT,
      pausedState,
      resumed,
      resumedIsInterrupted: api.isInterrupted(resumed),
      finalState: snapshotView(await graph.getState(config)),
      askRuns,
      history: await historyView(graph, config),
    };
  },

  /** Two interrupts in one node: each resume answers the next one in order. */
  async twoInterruptsInOneNode(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("form", () => {
        const name = api.interrupt("name?");
        const age = api.interrupt(`age of ${String(name)}?`);
        return { log: [`${String(name)}:${String(age)}`] };
      })
      .addEdge(api.START, "form")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("form");
    return {
      first: await graph.invoke({ n: 0 }, config),
      second: await graph.invoke(new api.Command({ resume: "ada" }), config),
      done: await graph.invoke(new api.Command({ resume: 36 }), config),
    };
  },

  /** Interrupts in two parallel branches are reported together and resumed by id in one go. */
  async parallelInterrupts(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("left", () => ({ log: [`left:${String(api.interrupt("left?"))}`] }))
      .addNode("right", () => ({ log: [`right:${String(api.interrupt("right?"))}`] }))
      .addEdge(api.START, "left")
      .addEdge(api.START, "right")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("parallel");
    const paused = await graph.invoke({ n: 0 }, config);
    const state = snapshotView(await graph.getState(config));
    const pending = (paused[api.INTERRUPT] ?? []) as { id: string; value: unknown }[];
    const answers = Object.fromEntries(
      pending.map((item) => [item.id, `to ${String(item.value)}`]),
    );
    const resumed = await graph.invoke(new api.Command({ resume: answers }), config);
    return { paused, state, resumed };
  },

  /**
   * A node that is not an `async function` but returns a promise (a plain arrow wrapping an async
   * helper) and calls interrupt() after an await pauses like any other node.
   */
  async interruptAfterAwaitInPlainFunction(api: GraphApi) {
    let reviewRuns = 0;
    const review = async (draft: string) => {
      reviewRuns++;
      await pause(1);
      return { log: [`${draft}:${String(api.interrupt({ draft }))}`] };
    };
    const graph = new api.StateGraph(counterState(api))
      .addNode("review", () => review("v1"))
      .addNode("send", () => ({ log: ["sent"] }))
      .addEdge(api.START, "review")
      .addEdge("review", "send")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("plain-async");
    const paused = await graph.invoke({ n: 0 }, config);
    const pausedState = snapshotView(await graph.getState(config));
    const resumed = await graph.invoke(new api.Command({ resume: "ok" }), config);
    return { paused, pausedState, resumed, reviewRuns };
  },

  /**
   * Command({ resume }) addressed to a past interrupted checkpoint continues from it on a new
   * branch: its tasks run again, an interrupt answered before keeps that answer, and one never
   * answered receives the new value. A null input from there replays (asks again).
   */
  async resumeAtPastCheckpoint(api: GraphApi) {
    const runs = { ask: 0, note: 0, after: 0 };
    const graph = new api.StateGraph(counterState(api))
      .addNode("ask", () => {
        runs.ask++;
        return { log: [`answer:${String(api.interrupt("?"))}`] };
      })
      .addNode("note", () => {
        runs.note++;
        return { log: ["note"] };
      })
      .addNode("after", () => {
        runs.after++;
        return { log: ["after"] };
      })
      .addEdge(api.START, "ask")
      .addEdge(api.START, "note")
      .addEdge("ask", "after")
      .compile({ checkpointer: new api.MemorySaver() });
    const pausedAt = async (id: string) => {
      for await (const snapshot of graph.getStateHistory(thread(id)))
        if (snapshot.next.includes("ask")) return snapshot.config;
      throw new Error(`${api.label}: no paused checkpoint on ${id}`);
    };
    // Answered before: the past answer stands.
    await graph.invoke({ n: 0 }, thread("answered"));
    await graph.invoke(new api.Command({ resume: "yes" }), thread("answered"));
    const answeredAt = await pausedAt("answered");
    const answered = await graph.invoke(new api.Command({ resume: "no" }), answeredAt);
    const answeredRuns = { ...runs };
    // Never answered (the thread moved on with a new input): the new value is delivered.
    await graph.invoke({ n: 0 }, thread("moved-on"));
    const movedOnAt = await pausedAt("moved-on");
    await graph.invoke({ n: 1 }, thread("moved-on"));
    const movedOn = await graph.invoke(new api.Command({ resume: "late" }), movedOnAt);
    const movedOnRuns = { ...runs };
    const replayed = await graph.invoke(null, movedOnAt);
    return {
      answered,
      answeredRuns,
      answeredHistory: await historyView(graph, thread("answered")),
      movedOn,
      movedOnRuns,
      replayed,
      movedOnHistory: await historyView(graph, thread("moved-on")),
    };
  },

  /** A task that finished without writing anything, beside an interrupted one, is not run again. */
  async quietTaskBesideInterrupt(api: GraphApi) {
    const runs = { quiet: 0, ask: 0 };
    const graph = new api.StateGraph(counterState(api))
      .addNode("quiet", () => {
        runs.quiet++;
      })
      .addNode("ask", () => {
        runs.ask++;
        return { log: [String(api.interrupt("?"))] };
      })
      .addEdge(api.START, "quiet")
      .addEdge(api.START, "ask")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("quiet");
    const paused = await graph.invoke({ n: 0 }, config);
    const pausedState = snapshotView(await graph.getState(config));
    const resumed = await graph.invoke(new api.Command({ resume: "ok" }), config);
    return { paused, pausedState, resumed, runs };
  },

  /** interrupt() without a checkpointer is an error, not a silent pause (nor a silent finish). */
  async interruptNeedsCheckpointer(api: GraphApi) {
    const failed = async (node: () => unknown) => {
      const graph = new api.StateGraph(counterState(api))
        .addNode("ask", node)
        .addEdge(api.START, "ask")
        .compile();
      const result = await outcome(api, () => graph.invoke({ n: 0 }));
      return typeof result === "object" && result !== null && "error" in result;
    };
    return {
      plain: await failed(() => ({ log: [String(api.interrupt("?"))] })),
      afterAwait: await failed(() => pause(1).then(() => ({ log: [String(api.interrupt("?"))] }))),
    };
  },

  /** interruptBefore and interruptAfter stop the run; invoke(null) continues it. */
  async staticInterrupts(api: GraphApi) {
    const build = (options: { interruptBefore?: string[]; interruptAfter?: string[] }) =>
      new api.StateGraph(counterState(api))
        .addNode("a", (state) => ({ n: num(state, "n") + 1, log: ["a"] }))
        .addNode("b", (state) => ({ n: num(state, "n") * 10, log: ["b"] }))
        .addNode("c", () => ({ log: ["c"] }))
        .addEdge(api.START, "a")
        .addEdge("a", "b")
        .addEdge("b", "c")
        .compile({ checkpointer: new api.MemorySaver(), ...options });
    const before = build({ interruptBefore: ["b"] });
    const after = build({ interruptAfter: ["b"] });
    const config = thread("static");
    const beforeStop = await before.invoke({ n: 1 }, config);
    return {
      beforeStop,
      beforeStopIsInterrupted: api.isInterrupted(beforeStop),
      beforeState: snapshotView(await before.getState(config)),
      beforeResume: await before.invoke(null, config),
      afterStop: await after.invoke({ n: 1 }, config),
      afterState: snapshotView(await after.getState(config)),
      afterResume: await after.invoke(null, config),
      afterHistory: await historyView(after, config),
    };
  },

  /**
   * interruptAfter a node with nothing after it still reports the pause (`__interrupt__: []`),
   * and a stream reports static pauses as `{ __interrupt__: [] }` chunks.
   */
  async staticInterruptReported(api: GraphApi) {
    const build = (options: { interruptBefore?: string[]; interruptAfter?: string[] }) =>
      new api.StateGraph(counterState(api))
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(api.START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new api.MemorySaver(), ...options });
    const afterLast = build({ interruptAfter: ["b"] });
    const config = thread("after-last");
    const stopped = await afterLast.invoke({ n: 0 }, config);
    const modes = { streamMode: ["updates", "values"] as ("updates" | "values")[] };
    return {
      stopped,
      stoppedIsInterrupted: api.isInterrupted(stopped),
      state: snapshotView(await afterLast.getState(config)),
      again: await afterLast.invoke(null, config),
      streamedAfterLast: await collectStream(afterLast, { n: 1 }, { ...thread("s1"), ...modes }),
      streamedBefore: await collectStream(
        build({ interruptBefore: ["b"] }),
        { n: 1 },
        { ...thread("s2"), ...modes },
      ),
    };
  },

  /** Streaming a run that interrupts, then streaming its resumption. */
  async streamInterrupt(api: GraphApi) {
    const graph = new api.StateGraph(counterState(api))
      .addNode("ask", () => ({ log: [String(api.interrupt("go?"))] }))
      .addNode("next", () => ({ log: ["next"] }))
      .addEdge(api.START, "ask")
      .addEdge("ask", "next")
      .compile({ checkpointer: new api.MemorySaver() });
    const modes = { streamMode: ["values", "updates"] as ("values" | "updates")[] };
    return {
      paused: await collectStream(graph, { n: 0 }, { ...thread("s"), ...modes }),
      resumed: await collectStream(graph, new api.Command({ resume: "go" }), {
        ...thread("s"),
        ...modes,
      }),
      updatesOnly: await collectStream(graph, { n: 0 }, { ...thread("u"), streamMode: "updates" }),
      valuesOnly: await collectStream(graph, { n: 0 }, { ...thread("v"), streamMode: "values" }),
    };
  },

  /** A failed step is retried by invoke(null); its successful sibling's write is not redone. */
  async resumeAfterNodeError(api: GraphApi) {
    const runs = { ok: 0, flaky: 0 };
    const graph = new api.StateGraph(counterState(api))
      .addNode("ok", () => {
        runs.ok++;
        return { log: ["ok"] };
      })
      .addNode("flaky", () => {
        runs.flaky++;
        if (runs.flaky === 1) throw new Error("transient");
        return { log: ["flaky"] };
      })
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(api.START, "ok")
      .addEdge(api.START, "flaky")
      .addEdge("flaky", "after")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("errors");
    const failed = await outcome(api, () => graph.invoke({ n: 0 }, config), true);
    const stateAfterError = snapshotView(await graph.getState(config));
    const resumed = await graph.invoke(null, config);
    return { failed, stateAfterError, resumed, runs };
  },

  /** Send workers that each ask a question; answered one at a time by interrupt id. */
  async interruptsInSendWorkers(api: GraphApi) {
    const State = api.Annotation.Root({
      items: api.Annotation(),
      log: api.Annotation({
        reducer: (a: string[], b: string[]) => a.concat(b),
        default: () => [],
      }),
    });
    let workerRuns = 0;
    const graph = new api.StateGraph(State)
      .addNode("worker", (input) => {
        workerRuns++;
        const answer = api.interrupt(`approve ${String(input.item)}?`);
        return { log: [`${String(input.item)}:${String(answer)}`] };
      })
      .addConditionalEdges(api.START, (state) =>
        (state.items as string[]).map((item) => new api.Send("worker", { item })),
      )
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("send-interrupts");
    const paused = await graph.invoke({ items: ["x", "y", "z"] }, config);
    const pending = (paused[api.INTERRUPT] ?? []) as { id: string; value: unknown }[];
    const first = pending.find((item) => item.value === "approve y?");
    if (first === undefined) throw new Error(`${api.label}: no interrupt for y`);
    const partly = await graph.invoke(new api.Command({ resume: { [first.id]: "ok" } }), config);
    const rest = ((partly[api.INTERRUPT] ?? []) as { id: string }[]).map((item) => item.id);
    const done = await graph.invoke(
      new api.Command({ resume: Object.fromEntries(rest.map((id) => [id, "later"])) }),
      config,
    );
    return { paused, partly, done, workerRuns };
  },
};
