/** The five bugs of issue 13, each a program run on both libraries. */
import type { GraphApi, RunConfig, Values } from "../api.js";
import { collectStream, outcome, thread } from "../harness.js";
import { concat } from "./common.js";

export const issue13BugPrograms = {
  /** Bug 1: `Annotation<T>` passed uncalled (LangGraph's docs do this everywhere) is a last value. */
  async uncalledAnnotation(api: GraphApi) {
    const State = api.Annotation.Root({
      topic: api.Annotation,
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ topic: `${String(s.topic)}!`, log: ["a"] }))
      .addNode("b", (s: Values) => ({ topic: `${String(s.topic)}?`, log: ["b"] }))
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile();
    return graph.invoke({ topic: "cats" });
  },

  /** Bug 2: `Command({ resume, update })` applies the update and answers the interrupt. */
  async commandResumeWithUpdate(api: GraphApi) {
    let askRuns = 0;
    const State = api.Annotation.Root({
      n: api.Annotation(),
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("ask", (s: Values) => {
        askRuns++;
        const answer = api.interrupt("go?");
        return { log: [`answer:${String(answer)} n:${String(s.n)}`] };
      })
      .addEdge(api.START, "ask")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("resume-update");
    const paused = await graph.invoke({ n: 1 }, config);
    const resumed = await graph.invoke(
      new api.Command({ resume: "yes", update: { n: 7 } }),
      config,
    );
    return { paused, resumed, askRuns };
  },

  /** Bug 3: a subgraph compiled with `interruptBefore` pauses the parent, which resumes it. */
  async subgraphInterruptBefore(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const child = new api.StateGraph(State)
      .addNode("c1", () => ({ log: ["c1"] }))
      .addNode("c2", () => ({ log: ["c2"] }))
      .addEdge(api.START, "c1")
      .addEdge("c1", "c2")
      .compile({ interruptBefore: ["c2"] });
    const graph = new api.StateGraph(State)
      .addNode("child", child)
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(api.START, "child")
      .addEdge("child", "after")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("sub-before");
    const paused = await graph.invoke({ log: ["in"] }, config);
    const next = (await graph.getState(config)).next;
    const resumed = await graph.invoke(null, config);
    return { paused, next: [...next], resumed };
  },

  /** Bug 4: a custom checkpointer sees the caller's whole `configurable` on every put. */
  async customCheckpointerSeesConfigurable(api: GraphApi) {
    const seen: string[] = [];
    const Base = api.MemorySaver as unknown as new () => {
      put(config: RunConfig, ...rest: unknown[]): Promise<RunConfig>;
      putWrites(config: RunConfig, ...rest: unknown[]): Promise<void>;
    };
    class Recording extends Base {
      override put(config: RunConfig, ...rest: unknown[]): Promise<RunConfig> {
        seen.push(`put:${String(config.configurable?.user_id)}`);
        return super.put(config, ...rest);
      }
      override putWrites(config: RunConfig, ...rest: unknown[]): Promise<void> {
        seen.push(`putWrites:${String(config.configurable?.user_id)}`);
        return super.putWrites(config, ...rest);
      }
    }
    const State = api.Annotation.Root({ n: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ n: Number(s.n) + 1 }))
      .addNode("b", (s: Values) => ({ n: Number(s.n) + 1 }))
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: new Recording() });
    const config: RunConfig = { configurable: { thread_id: "custom", user_id: "u1" } };
    await graph.invoke({ n: 0 }, config);
    await graph.invoke({ n: 10 }, config);
    return { allCarryUser: seen.every((entry) => entry.endsWith(":u1")), count: seen.length > 0 };
  },

  /** Bug 5: an unknown stream mode is an error, not a silent empty stream. */
  async unknownStreamMode(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("a", () => ({ n: 1 }))
      .addEdge(api.START, "a")
      .compile();
    const bogus = { streamMode: "bogus" } as unknown as RunConfig;
    const result = await outcome(api, () => collectStream(graph, { n: 0 }, bogus));
    return { failed: typeof result === "object" && result !== null && "error" in result };
  },
};

/** Stream modes added by issue 13. */
export const issue13StreamPrograms = {
  /** `config.writer` feeds the "custom" stream, from a node and from a subgraph's node. */
  async customStreamMode(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    type Writer = { writer?: (chunk: unknown) => void };
    const child = new api.StateGraph(State)
      .addNode("inner", (s: Values, config: RunConfig) => {
        (config as Writer).writer?.({ from: "inner" });
        return { n: Number(s.n) + 1 };
      })
      .addEdge(api.START, "inner")
      .compile();
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values, config: RunConfig) => {
        (config as Writer).writer?.({ from: "a", n: s.n });
        return { n: Number(s.n) + 1 };
      })
      .addNode("child", child)
      .addEdge(api.START, "a")
      .addEdge("a", "child")
      .compile();
    const custom = await collectStream(graph, { n: 0 }, {
      streamMode: "custom",
    } as unknown as RunConfig);
    const mixed = await collectStream(graph, { n: 0 }, {
      streamMode: ["custom", "updates"],
    } as unknown as RunConfig);
    const plain = await graph.invoke({ n: 5 });
    return { custom, mixed, plain };
  },
};
