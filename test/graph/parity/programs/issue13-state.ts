/** State forms added by issue 13: StateSchema/ReducedValue, legacy channels, input/output schemas. */
import { z } from "zod";
import type { GraphApi, Values } from "../api.js";
import { collectStream, outcome } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' constructors, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

export const issue13StatePrograms = {
  /** StateSchema: zod fields are last values with their defaults; ReducedValue folds writes. */
  async stateSchemaWithReducedValue(api: GraphApi) {
    const { StateSchema, ReducedValue } = lib(api);
    const State = new StateSchema({
      topic: z.string(),
      count: z.number().default(10),
      log: new ReducedValue(
        z.array(z.string()).default(() => []),
        { reducer: concat },
      ),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ log: [`a:${String(s.topic)}`], count: Number(s.count) + 1 }))
      .addNode("b", (s: Values) => ({ log: [`b:${String(s.count)}`] }))
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile();
    return { result: await graph.invoke({ topic: "cats" }) };
  },

  /** A StateSchema validates the graph input against the fields' schemas. */
  async stateSchemaRejectsBadInput(api: GraphApi) {
    const { StateSchema } = lib(api);
    const State = new StateSchema({ n: z.number() });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ n: Number(s.n) + 1 }))
      .addEdge(api.START, "a")
      .compile();
    const bad = await outcome(api, () => graph.invoke({ n: "not a number" }));
    return { good: await graph.invoke({ n: 1 }), failed: Object.hasOwn(bad as object, "error") };
  },

  /** The legacy `{ channels }` form and a plain object of annotations. */
  async legacyChannelsAndPlainObject(api: GraphApi) {
    const legacy = new api.StateGraph({
      channels: { n: null, log: { reducer: concat, default: () => [] } },
    } as unknown)
      .addNode("a", (s: Values) => ({ n: Number(s.n) + 1, log: ["a"] }))
      .addEdge(api.START, "a")
      .compile();
    const plain = new api.StateGraph({
      n: api.Annotation(),
      log: api.Annotation({ reducer: concat, default: () => [] }),
    } as unknown)
      .addNode("a", (s: Values) => ({ n: Number(s.n) * 2, log: ["p"] }))
      .addEdge(api.START, "a")
      .compile();
    return { legacy: await legacy.invoke({ n: 1 }), plain: await plain.invoke({ n: 3 }) };
  },

  /** Separate input and output schemas: the output restricts what invoke and values return. */
  async inputOutputSchemas(api: GraphApi) {
    const Input = api.Annotation.Root({ question: api.Annotation() });
    const Output = api.Annotation.Root({ answer: api.Annotation() });
    const State = api.Annotation.Root({
      question: api.Annotation(),
      answer: api.Annotation(),
      notes: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const build = (graph: ReturnType<GraphApi["StateGraph"]["prototype"]["addNode"]>) =>
      graph
        .addNode("think", (s: Values) => ({ notes: [`q:${String(s.question)}`] }))
        .addNode("say", (s: Values) => ({ answer: `a:${String(s.question)}` }))
        .addEdge(api.START, "think")
        .addEdge("think", "say")
        .compile();
    const viaInit = build(
      new api.StateGraph({ stateSchema: State, input: Input, output: Output } as unknown),
    );
    const viaOptions = build(
      new (api.StateGraph as unknown as new (a: unknown, b: unknown) => typeof viaInit)(State, {
        input: Input,
        output: Output,
      }) as never,
    );
    return {
      init: await viaInit.invoke({ question: "why" }),
      options: await viaOptions.invoke({ question: "how" }),
      values: await collectStream(viaInit, { question: "what" }, { streamMode: "values" }),
    };
  },

  /**
   * An input key that only the output schema (or only the state, when an input schema is given)
   * has is dropped from the graph input: nodes never see it.
   */
  async inputKeysOutsideTheInputSchemaAreDropped(api: GraphApi) {
    const State = api.Annotation.Root({
      hello: api.Annotation(),
      messages: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const Output = api.Annotation.Root({
      messages: api.Annotation(),
      extraOutput: api.Annotation(),
    });
    const Input = api.Annotation.Root({ hello: api.Annotation() });
    const seen: unknown[] = [];
    const build = (init: unknown) =>
      new api.StateGraph(init)
        .addNode("a", (s: Values) => {
          seen.push(s);
          return { messages: ["a"] };
        })
        .addEdge(api.START, "a")
        .compile();
    const input = { hello: "there", messages: ["hi"], extraOutput: "bar" };
    return {
      withOutput: await build({ stateSchema: State, output: Output }).invoke(input),
      withInput: await build({ stateSchema: State, input: Input, output: Output }).invoke(input),
      seen,
    };
  },
};

/** `compile({ checkpointer: true | false })` on subgraphs. */
export const issue13SubgraphPrograms = {
  /** `true`: the subgraph keeps its own state across the parent's calls; `false`: none is kept. */
  async subgraphCheckpointerFlag(api: GraphApi) {
    const run = async (flag: boolean | undefined) => {
      const Child = api.Annotation.Root({
        seen: api.Annotation({ reducer: concat, default: () => [] }),
        item: api.Annotation(),
      });
      const child = new api.StateGraph(Child)
        .addNode("remember", (s: Values) => ({ seen: [String(s.item)] }))
        .addEdge(api.START, "remember")
        .compile(flag === undefined ? {} : ({ checkpointer: flag } as never));
      const Parent = api.Annotation.Root({ item: api.Annotation(), out: api.Annotation() });
      const graph = new api.StateGraph(Parent)
        .addNode("call", async (s: Values, config: unknown) => {
          const result = (await child.invoke({ item: s.item }, config as never)) as Values;
          return { out: (result.seen as string[]).join(",") };
        })
        .addEdge(api.START, "call")
        .compile({ checkpointer: new api.MemorySaver() });
      const config = { configurable: { thread_id: `flag-${String(flag)}` } };
      await graph.invoke({ item: "a" }, config);
      return (await graph.invoke({ item: "b" }, config)).out;
    };
    return { own: await run(true), none: await run(false), inherit: await run(undefined) };
  },

  /** `true` as a node subgraph: state accumulates across the parent's runs on one thread. */
  async subgraphNodeOwnCheckpointer(api: GraphApi) {
    const Child = api.Annotation.Root({
      seen: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const child = new api.StateGraph(Child)
      .addNode("remember", () => ({ seen: ["x"] }))
      .addEdge(api.START, "remember")
      .compile({ checkpointer: true } as never);
    const graph = new api.StateGraph(Child)
      .addNode("child", child)
      .addEdge(api.START, "child")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = { configurable: { thread_id: "own-node" } };
    const first = await graph.invoke({ seen: ["in1"] }, config);
    const second = await graph.invoke({ seen: ["in2"] }, config);
    return { first, second };
  },
};

/** Long-term memory: `compile({ store })` hands nodes `config.store`. */
export const issue13StorePrograms = {
  /** Nodes put, get, search and list through `config.store`; the store outlives the thread. */
  async storeThroughConfig(api: GraphApi) {
    const { InMemoryStore } = lib(api);
    const store = new InMemoryStore();
    const State = api.Annotation.Root({ user: api.Annotation(), out: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("remember", async (s: Values, config: Loose) => {
        await config.store.put(["users", s.user, "notes"], "n1", {
          text: `hi ${String(s.user)}`,
          n: 1,
        });
        await config.store.put(["users", s.user, "notes"], "n2", { text: "second", n: 2 });
        const item = await config.store.get(["users", s.user, "notes"], "n1");
        const found = await config.store.search(["users", s.user], { filter: { n: 2 } });
        return { out: { value: item?.value, found: found.map((i: Loose) => i.key) } };
      })
      .addEdge(api.START, "remember")
      .compile({ store } as never);
    const first = await graph.invoke({ user: "u1" });
    await graph.invoke({ user: "u2" });
    await store.delete(["users", "u2", "notes"], "n2");
    return {
      first,
      namespaces: await store.listNamespaces(),
      prefixed: await store.listNamespaces({ prefix: ["users"], maxDepth: 2 }),
      afterDelete: (await store.search(["users", "u2"])).map((i: Loose) => i.key),
      missing: await store.get(["users", "u3"], "x"),
    };
  },
};

/** Builder forms added by issue 13. */
export const issue13BuilderPrograms = {
  /** `addNode([[name, fn], …])` adds several nodes in order. */
  async addNodeArrayForm(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const builder = new api.StateGraph(State) as unknown as Loose;
    const graph = builder
      .addNode([
        ["a", () => ({ log: ["a"] })],
        ["b", () => ({ log: ["b"] })],
      ])
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile();
    return graph.invoke({ log: [] });
  },
};
