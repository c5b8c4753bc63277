/** `bulkUpdateState`, `updateState` as `"__input__"`, `"__end__"` and `"__copy__"`. */
import type { GraphApi, Values } from "../api.js";
import { historyView, outcome, thread } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;

/** START → agent → tool on a checkpointer, as a thread to copy. */
function agentToolGraph(api: GraphApi): Loose {
  const State = api.Annotation.Root({ foo: api.Annotation() });
  return new api.StateGraph(State)
    .addNode("agent", () => ({ foo: "agent" }))
    .addNode("tool", () => ({ foo: "tool" }))
    .addEdge(api.START, "agent")
    .addEdge("agent", "tool")
    .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
}

/** Whether `call` rejects with an error whose message contains `text`. */
async function says(call: Promise<unknown>, text: string): Promise<unknown> {
  try {
    await call;
    return "resolved";
  } catch (error) {
    return error instanceof Error && error.message.includes(text);
  }
}

export const issue13UpdatesPrograms = {
  /** Two updates in one superstep make one checkpoint; supersteps chain; bad calls are refused. */
  async bulkUpdateSupersteps(api: GraphApi) {
    const State = api.Annotation.Root({ foo: api.Annotation(), baz: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("nodeA", () => ({ foo: "bar" }))
      .addNode("nodeB", () => ({ baz: "qux" }))
      .addEdge(api.START, "nodeA")
      .addEdge("nodeA", "nodeB")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    await graph.bulkUpdateState(thread("1"), [
      { updates: [{ values: { foo: "bar" }, asNode: "nodeA" }] },
    ]);
    await graph.bulkUpdateState(thread("1"), [
      {
        updates: [
          { values: { foo: "updated" }, asNode: "nodeA" },
          { values: { baz: "new" }, asNode: "nodeB" },
        ],
      },
    ]);
    await graph.bulkUpdateState(thread("2"), [
      { updates: [{ values: { foo: "bar" }, asNode: "nodeA" }] },
      { updates: [{ values: { foo: "x" }, asNode: "nodeA" }] },
    ]);
    const refused = async (supersteps: unknown) =>
      outcome(api, () => graph.bulkUpdateState(thread("2"), supersteps));
    return {
      one: await historyView(graph as never, thread("1")),
      two: await historyView(graph as never, thread("2")),
      withoutAsNode: await refused([
        { updates: [{ values: { foo: "e" } }, { values: { baz: "e" } }] },
      ]),
      // LangGraph.js throws a plain Error here, Keel an InvalidUpdateError: the text is compared.
      noSupersteps: await says(graph.bulkUpdateState(thread("2"), []), "No supersteps provided"),
      noUpdates: await says(
        graph.bulkUpdateState(thread("2"), [{ updates: [] }]),
        "No updates provided",
      ),
      endWithOthers: await refused([
        {
          updates: [
            { values: null, asNode: "__end__" },
            { values: { foo: "e" }, asNode: "nodeA" },
          ],
        },
      ]),
      unknownNode: await refused([{ updates: [{ values: { foo: "e" }, asNode: "nope" }] }]),
    };
  },

  /** A thread rebuilt update by update (`__input__`, START, each node) has the run's history. */
  async bulkUpdateCopiesThread(api: GraphApi) {
    const graph = agentToolGraph(api);
    await graph.invoke({ foo: "input" }, thread("1"));
    await graph.invoke({ foo: "input" }, thread("1"));
    const turn = [
      { updates: [{ values: { foo: "input" }, asNode: "__input__" }] },
      { updates: [{ values: { foo: "input" }, asNode: api.START }] },
      { updates: [{ values: { foo: "agent" }, asNode: "agent" }] },
      { updates: [{ values: { foo: "tool" }, asNode: "tool" }] },
    ];
    await graph.bulkUpdateState(thread("2"), [...turn, ...turn]);
    const view = async (id: string) => {
      const entries: unknown[] = [];
      for await (const s of graph.getStateHistory(thread(id)))
        entries.push({ values: s.values, next: s.next, step: s.metadata?.step });
      return entries;
    };
    // A thread whose input was saved as `__input__` runs on from it.
    await graph.updateState(thread("3"), { foo: "saved" }, "__input__");
    const pending = (await graph.getState(thread("3"))).next;
    return {
      run: await view("1"),
      copy: await view("2"),
      pending,
      resumed: await graph.invoke(null, thread("3")),
    };
  },

  /** A Command update with Sends, then the Sends' results as one superstep: the map-reduce run. */
  async bulkUpdateMapReduce(api: GraphApi) {
    const State = api.Annotation.Root({
      foo: api.Annotation(),
      tasks: api.Annotation({ reducer: concat as never, default: () => [] }),
    });
    const sends = () => [0, 1, 2].map((index) => new api.Send("task", { index }));
    const graph = new api.StateGraph(State)
      .addNode("agent", () => ({ foo: "agent" }))
      .addNode("map", () => new api.Command({ goto: sends(), update: { foo: "map" } }), {
        ends: ["task"],
      })
      .addNode("task", (task: Values) => ({ tasks: [task.index] }))
      .addEdge(api.START, "agent")
      .addEdge("agent", "map")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    await graph.invoke({ foo: "input" }, thread("1"));
    await graph.bulkUpdateState(thread("2"), [
      { updates: [{ values: { foo: "input" }, asNode: "__input__" }] },
      { updates: [{ values: { foo: "input" }, asNode: api.START }] },
      { updates: [{ values: { foo: "agent", tasks: [] }, asNode: "agent" }] },
      {
        updates: [
          { values: new api.Command({ goto: sends(), update: { foo: "map" } }), asNode: "map" },
        ],
      },
      {
        updates: [0, 1, 2].map((i) => ({ values: { tasks: [i] }, asNode: "task" })),
      },
    ]);
    const view = async (id: string) => {
      const entries: unknown[] = [];
      for await (const s of graph.getStateHistory(thread(id)))
        entries.push({
          values: s.values,
          next: s.next,
          tasks: s.tasks.map((t: { name: string }) => t.name),
        });
      return entries;
    };
    return { run: await view("1"), copy: await view("2") };
  },

  /** `updateState(config, null, "__end__")` ends an interrupted step: nothing is left to run. */
  async updateAsEndClearsPendingStep(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat as never, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("one", () => {
        api.interrupt("stop");
        return { log: ["one"] };
      })
      .addNode("two", () => ({ log: ["two"] }))
      .addEdge(api.START, "one")
      .addEdge(api.START, "two")
      .compile({ checkpointer: new api.MemorySaver() });
    await graph.invoke({ log: [] }, thread("1"));
    const before = await graph.getState(thread("1"));
    await graph.updateState(thread("1"), null as never, api.END);
    const after = await graph.getState(thread("1"));
    return {
      before: { next: before.next, values: before.values },
      after: { next: after.next, values: after.values, source: after.metadata?.source },
    };
  },

  /**
   * `updateState(config, null, "__copy__")` saves the checkpoint again as a fork beside it: the
   * interrupted step's pending writes (a finished task's update, the interrupt) are left behind,
   * so its tasks are due again without interrupts; a run from the copy runs them afresh.
   */
  async updateAsCopyForksWithoutPendingWrites(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat as never, default: () => [] }),
    });
    let asked = 0;
    const graph = new api.StateGraph(State)
      .addNode("ask", () => {
        asked += 1;
        return { log: [`ask:${String(api.interrupt("why?"))}`] };
      })
      .addNode("side", () => ({ log: ["side"] }))
      .addEdge(api.START, "ask")
      .addEdge(api.START, "side")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    await graph.invoke({ log: ["start"] }, thread("1"));
    const before = await graph.getState(thread("1"));
    const copied = await graph.updateState(thread("1"), null, "__copy__");
    const after = await graph.getState(thread("1"));
    const history = [];
    for await (const snapshot of graph.getStateHistory(thread("1")))
      history.push({
        source: snapshot.metadata?.source,
        step: snapshot.metadata?.step,
        siblingOfCopy:
          snapshot.parentConfig?.configurable?.checkpoint_id ===
          after.parentConfig?.configurable?.checkpoint_id,
      });
    const view = (s: Loose) => ({
      values: s.values,
      next: s.next,
      interrupts: s.tasks.map((t: Loose) => t.interrupts.map((i: Loose) => i.value)),
    });
    const run = await graph.invoke(new api.Command({ resume: "because" }), thread("1"));
    return {
      before: view(before),
      after: view(after),
      copiedIsLatest:
        copied.configurable?.checkpoint_id === after.config.configurable?.checkpoint_id,
      history,
      run,
      asked,
    };
  },

  /** `"__copy__"` with `[values, asNode]` pairs: the copy, then the pairs applied to it as one step. */
  async updateAsCopyWithUpdates(api: GraphApi) {
    const State = api.Annotation.Root({
      name: api.Annotation({ reducer: (a: string, b: string) => [a, b].join(" > ") }),
    });
    const graph = new api.StateGraph(State)
      .addNode("one", () => ({ name: "one" }))
      .addNode("two", () => ({ name: "two" }))
      .addEdge(api.START, "one")
      .addEdge("one", "two")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    await graph.invoke({ name: "start" }, thread("1"));
    const history = [];
    for await (const snapshot of graph.getStateHistory(thread("1"))) history.push(snapshot);
    // The checkpoint before START's input was applied (step -1).
    const first = history[history.length - 1];
    const forked = await graph.updateState(
      first.config,
      [[{ name: "start*" }, "__start__"]],
      "__copy__",
    );
    const result = await graph.invoke(null, forked);
    const after = [];
    for await (const snapshot of graph.getStateHistory(thread("1")))
      after.push({
        source: snapshot.metadata?.source,
        step: snapshot.metadata?.step,
        values: snapshot.values,
      });
    const errors = {
      missing: await says(graph.updateState(thread("none"), null, "__copy__"), "non-existent"),
      several: await says(
        graph.bulkUpdateState(thread("1"), [
          {
            updates: [
              { values: null, asNode: "__copy__" },
              { values: { name: "x" }, asNode: "one" },
            ],
          },
        ]),
        "multiple updates",
      ),
    };
    return { result, after, errors };
  },

  /**
   * A copy keeps the tasks its checkpoint had due, and an update given with the copy as one of
   * them is listed as that task's result: START's on a copy of the input checkpoint, a node's on a
   * copy of a later one. A copy of the input checkpoint alone, run on, applies the input.
   */
  async copyListsUpdatesAsTaskResults(api: GraphApi) {
    const State = api.Annotation.Root({
      name: api.Annotation({ reducer: (a: string, b: string) => [a, b].join(" > ") }),
    });
    const graph = new api.StateGraph(State)
      .addNode("one", () => ({ name: "one" }))
      .addNode("two", () => ({ name: "two" }))
      .addEdge(api.START, "one")
      .addEdge("one", "two")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    await graph.invoke({ name: "start" }, thread("tasks"));
    const history = [];
    for await (const snapshot of graph.getStateHistory(thread("tasks"))) history.push(snapshot);
    const input = history[history.length - 1];
    const beforeOne = history[history.length - 2];
    const tasksOf = async (config: unknown) => {
      const snapshot = await graph.getState(config);
      return {
        values: snapshot.values,
        tasks: snapshot.tasks.map((task: Loose) => ({ name: task.name, result: task.result })),
      };
    };
    const startUpdate = await graph.updateState(
      input.config,
      [[{ name: "start*" }, "__start__"]],
      "__copy__",
    );
    const oneUpdate = await graph.updateState(
      beforeOne.config,
      [[{ name: "one*" }, "one"]],
      "__copy__",
    );
    const parentOf = async (config: unknown) => (await graph.getState(config)).parentConfig;
    const plainCopy = await graph.updateState(input.config, null, "__copy__");
    return {
      startCopy: await tasksOf(await parentOf(startUpdate)),
      oneCopy: await tasksOf(await parentOf(oneUpdate)),
      plainCopy: await tasksOf(plainCopy),
      plainCopyRun: await graph.invoke(null, plainCopy),
    };
  },
};
