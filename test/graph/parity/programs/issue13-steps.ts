/**
 * What happens inside a step of parallel tasks, on both libraries: updates stream as each task
 * finishes, a failed task cancels the others, a cancelled stream leaves the finished task's
 * writes saved, and `updateState(config, null, END)` ends a paused step.
 */
import type { GraphApi, RunConfig } from "../api.js";
import { thread } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' graphs, called the same way.
type Loose = Record<string, any>;

function logState(api: GraphApi): unknown {
  return api.Annotation.Root({ log: api.Annotation({ reducer: concat, default: () => [] }) });
}

/**
 * A promise that settles when `open` is called, or after a long fallback (so a library that never
 * opens it still finishes, with `opened: false`): no outcome depends on how fast the machine is.
 */
function gate(): { wait: Promise<boolean>; open: () => void } {
  let open: () => void = () => {};
  const wait = new Promise<boolean>((resolve) => {
    const fallback = setTimeout(() => resolve(false), 5_000);
    open = () => {
      clearTimeout(fallback);
      resolve(true);
    };
  });
  return { wait, open };
}

/** Resolves when `signal` aborts (true), or after the fallback (false). */
function aborted(signal: AbortSignal | undefined): Promise<boolean> {
  const { wait, open } = gate();
  if (signal?.aborted) open();
  signal?.addEventListener("abort", open, { once: true });
  return wait;
}

/** `fast` and `slow` run in one step; `slow` waits on `slowWaits` before it returns. */
function parallel(
  api: GraphApi,
  slowWaits: (config: RunConfig) => Promise<unknown>,
  saver?: unknown,
) {
  return new api.StateGraph(logState(api))
    .addNode("fast", () => ({ log: ["fast"] }))
    .addNode("slow", async (_state: unknown, config: RunConfig) => {
      await slowWaits(config);
      return { log: ["slow"] };
    })
    .addEdge(api.START, "fast")
    .addEdge(api.START, "slow")
    .compile(saver === undefined ? {} : { checkpointer: saver }) as unknown as Loose;
}

export const issue13StepPrograms = {
  /** The updates stream shows a task's update when it finishes, before its step ends. */
  async updatesAsTasksFinish(api: GraphApi) {
    const slowMayEnd = gate();
    const graph = parallel(api, () => slowMayEnd.wait);
    const chunks: unknown[] = [];
    let sawFastWhileSlowRan = false;
    for await (const chunk of await graph.stream({ log: [] }, { streamMode: "updates" })) {
      chunks.push(chunk);
      if ((chunk as Loose).fast) {
        sawFastWhileSlowRan = true;
        slowMayEnd.open();
      }
    }
    return { chunks, sawFastWhileSlowRan };
  },

  /** A task that throws cancels its step's other tasks (their signal fires); its error is thrown. */
  async failedTaskCancelsSiblings(api: GraphApi) {
    let siblingSawAbort: Promise<boolean> = Promise.resolve(false);
    const graph = new api.StateGraph(logState(api))
      .addNode("waits", async (_state: unknown, config: RunConfig) => {
        siblingSawAbort = aborted(config.signal);
        await siblingSawAbort;
        return { log: ["waits"] };
      })
      .addNode("bad", async () => {
        await Promise.resolve();
        throw new Error("I am bad");
      })
      .addEdge(api.START, "waits")
      .addEdge(api.START, "bad")
      .compile() as unknown as Loose;
    const error = await graph.invoke({ log: [] }).catch((e: Error) => e.message);
    return { error, siblingSawAbort: await siblingSawAbort };
  },

  /**
   * A stream cancelled after the first task's update: the slow task's signal fires, and the
   * thread keeps the finished task's writes, with the slow task left to run.
   */
  async cancelledStream(api: GraphApi) {
    let slowSawAbort: Promise<boolean> = Promise.resolve(false);
    const graph = parallel(
      api,
      (config) => {
        slowSawAbort = aborted(config.signal);
        return slowSawAbort;
      },
      new api.MemorySaver(),
    );
    const stream = (await graph.stream({ log: [] }, thread("c1"))) as Loose;
    const first = (await stream.next()).value;
    await stream.cancel();
    const sawAbort = await slowSawAbort;
    const state = await graph.getState(thread("c1"));
    return { first, sawAbort, values: state.values, next: state.next };
  },

  /** An input that changes no state key (`{}`) shows no values chunk; the node's step does. */
  async emptyInputShowsNoValues(api: GraphApi) {
    const graph = new api.StateGraph(logState(api))
      .addNode("only", () => ({ log: ["only"] }))
      .addEdge(api.START, "only")
      .compile() as unknown as Loose;
    const chunks: unknown[] = [];
    for await (const chunk of await graph.stream({}, { streamMode: "values" })) chunks.push(chunk);
    return chunks;
  },

  /**
   * A graph invoked inside a node with an explicit `configurable` of its own (no thread: an
   * agent's defaults) runs nested under the task: its nodes see both configurables and a
   * namespace under the task's, and a parent streamed with `subgraphs: true` shows its updates.
   */
  async nestedInvokeWithOwnConfigurable(api: GraphApi) {
    const seen: Loose[] = [];
    const child = new api.StateGraph(logState(api))
      .addNode("child_node", (_state: unknown, config: RunConfig) => {
        const configurable = config.configurable ?? {};
        const ns = String(configurable.checkpoint_ns ?? "");
        seen.push({
          ns: ns.split("|").map((segment) => segment.split(":")[0]),
          agent: configurable.agent,
          user: configurable.user,
        });
        return { log: ["child"] };
      })
      .addEdge(api.START, "child_node")
      .compile();
    const parent = new api.StateGraph(logState(api))
      .addNode("parent_node", async () => {
        const result = (await child.invoke({ log: [] }, {
          configurable: { agent: "weather" },
        } as never)) as Loose;
        return { log: result.log };
      })
      .addEdge(api.START, "parent_node")
      .compile() as unknown as Loose;
    const result = await parent.invoke({ log: [] }, { configurable: { user: "u1" } });
    const chunks: unknown[] = [];
    for await (const [ns, chunk] of await parent.stream(
      { log: [] },
      { streamMode: "updates", subgraphs: true },
    ))
      chunks.push([(ns as string[]).map((segment) => segment.split(":")[0]), chunk]);
    return { result, seen, chunks };
  },

  /**
   * `debug` checkpoint payloads of a graph and its nested subgraphs are the snapshots
   * `getStateHistory` gives for the same checkpoints (config, parent, values, next, tasks).
   */
  async debugCheckpointsMatchHistory(api: GraphApi) {
    const child = new api.StateGraph(logState(api))
      .addNode("c_one", () => ({ log: ["c_one"] }))
      .addNode("c_two", () => ({ log: ["c_two"] }))
      .addEdge(api.START, "c_one")
      .addEdge("c_one", "c_two")
      .compile();
    const graph = new api.StateGraph(logState(api))
      .addNode("p_one", () => ({ log: ["p_one"] }))
      .addNode("p_two", child as never)
      .addEdge(api.START, "p_one")
      .addEdge("p_one", "p_two")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    const byNs = new Map<string, Loose[]>();
    for await (const [ns, event] of await graph.stream(
      { log: [] },
      { ...thread("d1"), streamMode: "debug", subgraphs: true },
    )) {
      if (event.type !== "checkpoint") continue;
      const key = (ns as string[]).join("|");
      byNs.set(key, [...(byNs.get(key) ?? []), event.payload]);
    }
    const view = (snapshot: Loose) => ({
      id: snapshot.config?.configurable?.checkpoint_id,
      parent: snapshot.parentConfig?.configurable?.checkpoint_id,
      values: snapshot.values,
      next: snapshot.next,
      tasks: snapshot.tasks.map((task: Loose) => [task.id, task.name, task.path]),
    });
    const out: Loose[] = [];
    for (const [ns, payloads] of byNs) {
      const history: Loose[] = [];
      for await (const snapshot of graph.getStateHistory({
        configurable: { thread_id: "d1", checkpoint_ns: ns },
      }))
        history.unshift(snapshot);
      out.push({
        ns: ns ? ns.split("|").map((segment) => segment.split(":")[0]) : [],
        steps: payloads.map((payload) => [payload.metadata?.step, payload.next]),
        sameAsHistory: JSON.stringify(payloads.map(view)) === JSON.stringify(history.map(view)),
      });
    }
    return out;
  },

  /**
   * A function node declared with `addNode(name, fn, { subgraphs: [child] })` that invokes the
   * child itself: the child's history under the node's namespace is read with the child's schema.
   */
  async declaredSubgraphHistory(api: GraphApi) {
    const child = new api.StateGraph(logState(api))
      .addNode("c_one", () => ({ log: ["c_one"] }))
      .addNode("c_two", () => ({ log: ["c_two"] }))
      .addEdge(api.START, "c_one")
      .addEdge("c_one", "c_two")
      .compile() as unknown as Loose;
    const graph = new api.StateGraph(logState(api))
      .addNode("p_two", (state: unknown, config: RunConfig) => child.invoke(state, config), {
        subgraphs: [child],
      } as never)
      .addEdge(api.START, "p_two")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    let childNs: string | undefined;
    for await (const [ns] of await graph.stream(
      { log: [] },
      { ...thread("s1"), streamMode: "updates", subgraphs: true },
    ))
      if ((ns as string[]).length > 0) childNs = (ns as string[]).join("|");
    const history: unknown[] = [];
    for await (const snapshot of graph.getStateHistory({
      configurable: { thread_id: "s1", checkpoint_ns: childNs },
    }))
      history.unshift([snapshot.metadata?.step, snapshot.next, snapshot.values]);
    return history;
  },

  /** `updateState(config, null, END)` on a paused step: finished writes kept, nothing left. */
  async updateStateEndsStep(api: GraphApi) {
    const graph = new api.StateGraph(logState(api))
      .addNode("done", () => ({ log: ["done"] }))
      .addNode("asks", () => {
        api.interrupt("question");
        return { log: ["answered"] };
      })
      .addNode("later", () => ({ log: ["later"] }))
      .addEdge(api.START, "done")
      .addEdge(api.START, "asks")
      .addEdge("asks", "later")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    const paused = await graph.invoke({ log: [] }, thread("e1"));
    await graph.updateState(thread("e1"), null, api.END);
    const state = await graph.getState(thread("e1"));
    return {
      paused: paused.log,
      values: state.values,
      next: state.next,
      source: state.metadata?.source,
    };
  },

  /**
   * A step with a `Send` to a node and an edge to it: the Send's task runs first, the edge's
   * writes apply first, as in LangGraph.js (the reducer shows both orders).
   */
  async sendRunsBeforeEdgeTaskOfOneStep(api: GraphApi) {
    const State = api.Annotation.Root({
      name: api.Annotation({ reducer: (a: string, b: string) => [a, b].join(" > ") }),
    });
    let runs = 0;
    const ran: unknown[] = [];
    const graph = new api.StateGraph(State)
      .addNode(
        "one",
        () => new api.Command({ goto: [new api.Send("two", {})], update: { name: "one" } }),
        {
          ends: ["two"],
        },
      )
      .addNode("two", (s: Loose) => {
        runs += 1;
        ran.push(s);
        return { name: `two ${runs}` };
      })
      .addEdge(api.START, "one")
      .addEdge("one", "two")
      .compile() as unknown as Loose;
    const updates = [];
    for await (const chunk of await graph.stream({ name: "start" }, { streamMode: "updates" }))
      updates.push(chunk);
    return { result: await graph.invoke({ name: "again" }), ran, updates };
  },
};
