/** `setNodeDefaults`, node `cachePolicy` with `compile({ cache })`, on both libraries. */
import type { GraphApi, Values } from "../api.js";

interface Policies {
  retryPolicy?: unknown;
  cachePolicy?: unknown;
}
interface Builder {
  setNodeDefaults(defaults: Policies): Builder;
  addNode(name: string, fn: (s: Values) => unknown, options?: Policies): Builder;
  addEdge(from: string, to: string): Builder;
  nodes: Record<string, Policies>;
  compile(options?: { cache?: unknown }): {
    invoke(input: Values): Promise<Values>;
    nodes: Record<string, Policies>;
    clearCache(): Promise<void>;
  };
}

function builder(api: GraphApi): Builder {
  const State = api.Annotation.Root({ foo: api.Annotation() });
  return new api.StateGraph(State) as unknown as Builder;
}

const fastRetry = { maxAttempts: 3, initialInterval: 1, jitter: false, logWarning: false };

export const issue13DefaultsPrograms = {
  /** A default retry policy applies to nodes without their own; a node's own wins. */
  async retryDefaults(api: GraphApi) {
    let flaky = 0;
    let own = 0;
    const graph = builder(api)
      .setNodeDefaults({ retryPolicy: fastRetry })
      .addNode("flaky", () => {
        flaky += 1;
        if (flaky < 3) throw new Error("not yet");
        return { foo: "flaky ok" };
      })
      .addNode(
        "own",
        (s) => {
          own += 1;
          if (own < 2) throw new Error("not yet");
          return { foo: `${String(s.foo)} own ok` };
        },
        { retryPolicy: { maxAttempts: 2, initialInterval: 1, jitter: false, logWarning: false } },
      )
      .addEdge(api.START, "flaky")
      .addEdge("flaky", "own")
      .compile();
    const result = await graph.invoke({ foo: "" });
    return { result, flaky, own, policies: graph.nodes.own?.retryPolicy };
  },

  /** Cached nodes run once per input; `cachePolicy: false` opts out; clearCache forgets. */
  async cachePolicies(api: GraphApi) {
    const Cache = (api as unknown as { InMemoryCache: new () => unknown }).InMemoryCache;
    const calls = { cached: 0, uncached: 0 };
    const built = builder(api)
      .setNodeDefaults({ cachePolicy: true })
      .addNode("cached", (s) => {
        calls.cached += 1;
        return { foo: `${String(s.foo)}+c` };
      })
      .addNode(
        "uncached",
        (s) => {
          calls.uncached += 1;
          return { foo: `${String(s.foo)}+u` };
        },
        { cachePolicy: false },
      )
      .addEdge(api.START, "cached")
      .addEdge("cached", "uncached");
    const asAdded = built.nodes.uncached?.cachePolicy;
    const graph = built.compile({ cache: new Cache() });
    const first = await graph.invoke({ foo: "x" });
    const second = await graph.invoke({ foo: "x" });
    const afterTwo = { ...calls };
    await graph.clearCache();
    await graph.invoke({ foo: "x" });
    return {
      first,
      second,
      afterTwo,
      afterClear: calls,
      asAdded,
      compiled: [graph.nodes.cached?.cachePolicy, graph.nodes.uncached?.cachePolicy ?? "none"],
    };
  },
};
