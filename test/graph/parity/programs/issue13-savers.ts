/**
 * Issue 13, session 6: what a checkpointer sees and how its failures surface (a saver's own
 * `getNextVersion`, a throwing `putWrites`, a `Pregel` saving a Topic nobody wrote), and nodes
 * returning an array that mixes updates and Commands.
 */
import type { GraphApi } from "../api.js";
import { collectStream, outcome, thread } from "../harness.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

/** One node `agent` (and, with `parallel`, a second one in the same step) writing `foo`. */
function fooGraph(api: GraphApi, checkpointer: unknown, parallel = false) {
  const State = api.Annotation.Root({
    foo: api.Annotation({ reducer: (_a: never, b: never) => b }),
  });
  const builder = new api.StateGraph(State)
    .addNode("agent", () => ({ foo: "agent" }))
    .addEdge(api.START, "agent")
    .addEdge("agent", api.END);
  if (parallel)
    builder
      .addNode("parallel", () => ({ foo: "parallel" }))
      .addEdge(api.START, "parallel")
      .addEdge("parallel", api.END);
  return builder.compile({ checkpointer });
}

export const issue13SaverPrograms = {
  /** A saver whose `getNextVersion` throws fails the run with that error. */
  async throwingGetNextVersion(api: GraphApi) {
    class FaultyVersion extends lib(api).MemorySaver {
      getNextVersion(): number {
        throw new Error("Faulty get_next_version");
      }
    }
    const graph = fooGraph(api, new FaultyVersion());
    return outcome(api, () => graph.invoke({ foo: "in" }, thread("1")), true);
  },

  /** A saver's own `getNextVersion` numbers the channels of every checkpoint it is given. */
  async customGetNextVersion(api: GraphApi) {
    const asked: unknown[] = [];
    class Counting extends lib(api).MemorySaver {
      getNextVersion(current: number | undefined): number {
        asked.push(current === undefined ? "none" : Number.isInteger(current));
        return (current ?? 0) + 1;
      }
    }
    const saver = new Counting();
    const graph = fooGraph(api, saver);
    const result = await graph.invoke({ foo: "in" }, thread("1"));
    const tuple = await saver.getTuple(thread("1"));
    return {
      result,
      called: asked.length > 0,
      everyCurrentInteger: asked.every((a) => a === "none" || a === true),
      // The numbers themselves differ (LangGraph.js counts over all channels): only their kind.
      fooVersionIsInteger: Number.isInteger(tuple.checkpoint.channel_versions.foo),
    };
  },

  /** A `putWrites` that throws fails the run with that error, also with two nodes in a step. */
  async throwingPutWrites(api: GraphApi) {
    class FaultyPutWrites extends lib(api).MemorySaver {
      async putWrites(): Promise<void> {
        throw new Error("Faulty put_writes");
      }
    }
    return {
      one: await outcome(
        api,
        () => fooGraph(api, new FaultyPutWrites()).invoke({ foo: "in" }, thread("1")),
        true,
      ),
      two: await outcome(
        api,
        () => fooGraph(api, new FaultyPutWrites(), true).invoke({ foo: "in" }, thread("1")),
        true,
      ),
    };
  },

  /**
   * A `Pregel` with a Topic nobody writes: every checkpoint the saver stored reads back exactly
   * as it was put (a channel value without a version would be in the one and not the other).
   */
  async pregelStoresWhatItPuts(api: GraphApi) {
    const { Pregel, Channel, LastValue, Topic, MemorySaver } = lib(api);
    const put: Record<string, unknown> = {};
    class Recording extends MemorySaver {
      async put(config: unknown, checkpoint: Loose, ...rest: unknown[]) {
        put[checkpoint.id] = JSON.parse(JSON.stringify(checkpoint.channel_values));
        return super.put(config, checkpoint, ...rest);
      }
    }
    const saver = new Recording();
    const app = new Pregel({
      nodes: {
        one: Channel.subscribeTo("input")
          .pipe((x: number) => x + 1)
          .pipe(Channel.writeTo(["output"])),
        idle: Channel.subscribeTo("inbox")
          .pipe((xs: number[]) => xs.length)
          .pipe(Channel.writeTo(["output"])),
      },
      channels: { input: new LastValue(), inbox: new Topic(), output: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: saver,
    });
    const result = await app.invoke(2, thread("1"));
    const same: boolean[] = [];
    for await (const tuple of saver.list(thread("1"))) {
      const stored = JSON.parse(JSON.stringify(tuple.checkpoint.channel_values));
      same.push(JSON.stringify(stored) === JSON.stringify(put[tuple.checkpoint.id]));
    }
    return { result, same };
  },

  /** An array holding a Command may mix in plain updates; each item is applied. */
  async mixedArrayOfUpdatesAndCommands(api: GraphApi) {
    const State = api.Annotation.Root({
      foo: api.Annotation({
        reducer: (a: never, b: never) => `${a ?? ""}|${b}`,
        default: () => "",
      }),
      bar: api.Annotation(),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", (s) => [new api.Command({ update: { foo: "a" }, goto: s.bar ? "c" : "b" })], {
        ends: ["b", "c"],
      })
      .addNode("b", () => [{ foo: "b" }, new api.Command({ update: { bar: "set" } }), null])
      .addNode("c", () => ({ foo: "c" }))
      .addEdge(api.START, "a")
      .compile();
    return {
      toB: await graph.invoke({ foo: "in" }),
      toC: await graph.invoke({ foo: "in", bar: "given" }),
      updates: await collectStream(graph, { foo: "in" }, { streamMode: "updates" }),
    };
  },

  /**
   * A Command's update as `[key, value]` pairs writes a key twice: `updates` shows one entry per
   * write, task results (`tasks` stream, history) `{ key: { $writes } }`; START's task shows the input.
   */
  async commandUpdatePairs(api: GraphApi) {
    const State = api.Annotation.Root({
      foo: api.Annotation({
        reducer: (a: never, b: never) => [a, b].filter(Boolean).join(", "),
        default: () => "",
      }),
    });
    const graph = new api.StateGraph(State)
      .addSequence({
        one: () =>
          new api.Command({
            update: [
              ["foo", "one.0"],
              ["foo", "one.1"],
            ] as never,
          }),
        two: () => ({ foo: "two" }),
      })
      .addEdge(api.START, "one")
      .compile({ checkpointer: new api.MemorySaver() });
    const chunks = await collectStream(
      graph,
      { foo: "input" },
      { ...thread("1"), streamMode: ["updates", "tasks"] as never },
    );
    const history: unknown[] = [];
    for await (const snapshot of graph.getStateHistory(thread("1")))
      history.push({
        step: snapshot.metadata?.step,
        values: snapshot.values,
        tasks: snapshot.tasks.map((t) => ({ name: t.name, result: (t as Loose).result })),
      });
    return {
      chunks: chunks.map((c) => {
        const [mode, payload] = c as [string, Loose];
        return mode === "tasks" ? [mode, { name: payload.name, result: payload.result }] : c;
      }),
      history,
    };
  },

  /**
   * A thrown `NodeInterrupt` stops a run without a checkpointer (nothing to resume); thrown by a
   * conditional edge it also warns on the console, once.
   */
  async nodeInterruptWithoutSaver(api: GraphApi) {
    const { NodeInterrupt } = lib(api);
    const State = api.Annotation.Root({
      count: api.Annotation({ reducer: (a: number, b: number) => a + b }),
    });
    const graph = (inEdge: boolean) =>
      new api.StateGraph(State)
        .addNode("one", () => {
          if (!inEdge) throw new NodeInterrupt("in node");
          return { count: 1 };
        })
        .addNode("two", () => ({ count: 1 }))
        .addEdge(api.START, "one")
        .addConditionalEdges("one", () => {
          throw new NodeInterrupt("in edge");
        }, [api.END, "two"])
        .compile();
    const warnings: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      const view = (result: Record<string, unknown>) => ({
        keys: Object.keys(result).sort(),
        interrupts: (result[api.INTERRUPT] as Array<{ value: unknown }>).map((i) => i.value),
      });
      const inNode = view(await graph(false).invoke({ count: 0 }));
      const warnedInNode = warnings.length;
      const inEdge = view(await graph(true).invoke({ count: 0 }));
      return { inNode, warnedInNode, inEdge, warnings };
    } finally {
      console.warn = warn;
    }
  },

  /**
   * `Command` and `Send` serialise to LangGraph.js's JSON form; a Command sent as a Send's args
   * is a Command again after a pause saved it (`interruptBefore`).
   */
  async commandJsonAndSendArgs(api: GraphApi) {
    const { isCommand } = lib(api);
    const State = api.Annotation.Root({
      items: api.Annotation({
        reducer: (a: string[], b: string[]) => a.concat(b),
        default: () => [],
      }),
    });
    const node = (name: string) => (state: unknown) => {
      if (!isCommand(state)) return { items: [name] };
      const command = state as { toJSON(): unknown; goto: unknown };
      return new api.Command({
        goto: command.goto,
        update: { items: [`${name}|${JSON.stringify(command.toJSON())}`] },
      });
    };
    const graph = new api.StateGraph(State)
      .addNode("1", node("1"))
      .addNode("2", node("2"))
      .addNode("3", node("3"))
      .addEdge(api.START, "1")
      .addConditionalEdges("1", () => [
        new api.Send("2", new api.Command({ goto: new api.Send("3", 3) })),
        "3",
      ])
      .compile({ checkpointer: new api.MemorySaver(), interruptBefore: ["2"] });
    await graph.invoke({ items: ["0"] }, thread("1"));
    const resumed = await graph.invoke(null, thread("1"));
    return {
      json: JSON.parse(
        JSON.stringify([
          new api.Command({ update: { a: 1 }, goto: ["x", new api.Send("y", { b: 2 })] }),
          new api.Command({ resume: "r" }),
          new api.Send("n", 1),
        ]),
      ),
      resumed,
    };
  },

  /**
   * A paused subgraph's snapshot names where its parent was (`checkpoint_map`, from the
   * checkpoint's `metadata.parents`); time travel to it forks the parent from that checkpoint.
   */
  async subgraphCheckpointMap(api: GraphApi) {
    const State = api.Annotation.Root({
      value: api.Annotation({
        reducer: (a: string[], b: string[]) => a.concat(b),
        default: () => [],
      }),
    });
    const executor = new api.StateGraph(State)
      .addNode("ask", () => ({ value: [`a:${String(api.interrupt("Q?"))}`] }))
      .addEdge(api.START, "ask")
      .compile({ checkpointer: true } as never);
    const graph = new api.StateGraph(State)
      .addNode("executor", executor)
      .addEdge(api.START, "executor")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("1");
    await graph.invoke({ value: [] }, config);
    const parentAt = (await graph.getState(config)).config.configurable?.checkpoint_id;
    const sub = await (graph as unknown as Loose).getState(
      { configurable: { thread_id: "1", checkpoint_ns: "executor" } },
      { subgraphs: true },
    );
    const map = sub.config.configurable.checkpoint_map as Record<string, string>;
    await graph.invoke(new api.Command({ resume: "first" }), config);
    await graph.invoke(null, sub.config);
    const [latest] = await (async () => {
      const all: Loose[] = [];
      for await (const s of graph.getStateHistory(config)) all.push(s);
      return all;
    })();
    return {
      mapKeys: Object.keys(map).sort(),
      rootIsParent: map[""] === parentAt,
      ownIsSubgraph: map.executor === sub.config.configurable.checkpoint_id,
      parents: Object.keys(sub.metadata.parents),
      forkSource: latest?.metadata?.source,
      forkParentIsRoot: latest?.parentConfig?.configurable?.checkpoint_id === map[""],
    };
  },

  /**
   * `updateState` on a past checkpoint forks the thread: the run from the fork gives a stateful
   * subgraph its state as of that checkpoint, not the one the thread reached later.
   */
  async statefulSubgraphAfterForkingUpdate(api: GraphApi) {
    const trail = () =>
      api.Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] });
    const seen: unknown[] = [];
    const mid = new api.StateGraph(api.Annotation.Root({ midTrail: trail() }))
      .addNode("mid_step", (s) => {
        seen.push([...(s.midTrail as string[])]);
        return { midTrail: ["mid"] };
      })
      .addEdge(api.START, "mid_step")
      .compile({ checkpointer: true } as never);
    const graph = new api.StateGraph(api.Annotation.Root({ results: trail() }))
      .addNode("parent_step", () => ({ results: ["p"] }))
      .addNode("mid_node", mid)
      .addEdge(api.START, "parent_step")
      .addEdge("parent_step", "mid_node")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("1");
    await graph.invoke({ results: [] }, config);
    await graph.invoke({ results: [] }, config);
    const history: Loose[] = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    const before = history.find((s) => s.next.includes("parent_step"));
    const fork = await graph.updateState(before?.config, { results: ["forked"] });
    seen.length = 0;
    const result = await graph.invoke(null, fork);
    return { result, seen };
  },
};
