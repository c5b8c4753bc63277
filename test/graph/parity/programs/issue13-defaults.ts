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

  /** A cache hit's `updates` chunk carries `__metadata__: { cached: true }`; a run's does not. */
  async cacheHitInUpdates(api: GraphApi) {
    const Cache = (api as unknown as { InMemoryCache: new () => unknown }).InMemoryCache;
    const graph = builder(api)
      .addNode("cached", (s) => ({ foo: `${String(s.foo)}+c` }), { cachePolicy: true })
      .addNode("plain", (s) => ({ foo: `${String(s.foo)}+p` }))
      .addEdge(api.START, "cached")
      .addEdge("cached", "plain")
      .compile({ cache: new Cache() }) as unknown as {
      stream(input: Values, config: unknown): Promise<AsyncIterable<unknown>>;
    };
    const run = async () => {
      const chunks: unknown[] = [];
      for await (const chunk of await graph.stream({ foo: "x" }, { streamMode: "updates" }))
        chunks.push(chunk);
      return chunks;
    };
    return { miss: await run(), hit: await run() };
  },
};

type Handler = (state: Values, error: { node: string; error: Error }, config: unknown) => unknown;
interface InputBuilder {
  setNodeDefaults(defaults: { errorHandler: Handler }): InputBuilder;
  addNode(name: string, fn: () => unknown, options?: { input?: unknown }): InputBuilder;
  addEdge(from: string, to: string): InputBuilder;
  compile(): { invoke(input: Values): Promise<Values> };
}

/** Node error handlers (per node and by default) and `NodeError`, on both libraries. */
export const issue13ErrorHandlerPrograms = {
  async handlersRecoverAndRoute(api: GraphApi) {
    const State = api.Annotation.Root({
      route: api.Annotation(),
      log: api.Annotation({
        reducer: (a: string[], b: string[]) => a.concat(b),
        default: () => [],
      }),
    });
    const seen: unknown[] = [];
    const NodeErrorClass = (api as unknown as { NodeError: new (...a: never[]) => Error })
      .NodeError;
    const graph = (
      new api.StateGraph(State) as unknown as {
        setNodeDefaults(d: { errorHandler: Handler }): {
          addNode(name: string, fn: (s: Values) => unknown, o?: { errorHandler?: Handler }): never;
        };
      }
    ).setNodeDefaults({
      errorHandler: (state, error) => {
        seen.push({
          by: "default",
          node: error.node,
          message: error.error.message,
          input: state.route,
        });
        return { log: [`default handled ${error.node}`] };
      },
    }) as unknown as {
      addNode(
        name: string,
        fn: (s: Values) => unknown,
        o?: { errorHandler?: Handler },
      ): typeof graph;
      addEdge(a: string, b: string): typeof graph;
      addConditionalEdges(a: string, f: (s: Values) => unknown, m: string[]): typeof graph;
      compile(): { invoke(i: Values): Promise<Values> };
    };
    graph
      .addNode("router", () => ({ log: ["router"] }))
      .addNode("failA", () => {
        throw new Error("a failed");
      })
      .addNode(
        "failB",
        () => {
          throw new Error("b failed");
        },
        {
          errorHandler: (_state, error) => {
            seen.push({
              by: "own",
              isNodeError: error instanceof NodeErrorClass,
              node: error.node,
            });
            return new api.Command({ update: { log: ["b handled"] }, goto: "after" });
          },
        },
      )
      .addNode("after", () => ({ log: ["after"] }))
      .addEdge(api.START, "router")
      .addConditionalEdges("router", (s) => s.route, ["failA", "failB"]);
    const compiled = graph.compile();
    return {
      a: await compiled.invoke({ route: "failA" }),
      b: await compiled.invoke({ route: "failB" }),
      seen,
    };
  },

  /** A shared handler sees the failed node's input: its input schema's keys, not the whole state. */
  async handlerGetsTheNodeInputSubset(api: GraphApi) {
    const State = api.Annotation.Root({
      a: api.Annotation(),
      b: api.Annotation(),
      handled: api.Annotation({
        reducer: (x: string[], y: string[]) => x.concat(y).sort(),
        default: () => [],
      }),
    });
    const NodeInput = api.Annotation.Root({ a: api.Annotation() });
    const received: unknown[] = [];
    const graph = (new api.StateGraph(State) as unknown as InputBuilder)
      .setNodeDefaults({
        errorHandler: (state, error) => {
          received.push({ node: error.node, state });
          return { handled: [error.node] };
        },
      })
      .addNode(
        "narrow",
        () => {
          throw new Error("narrow failed");
        },
        { input: NodeInput },
      )
      .addNode("whole", () => {
        throw new Error("whole failed");
      })
      .addEdge(api.START, "narrow")
      .addEdge(api.START, "whole")
      .compile();
    const result = await graph.invoke({ a: "x", b: "y" });
    const byNode = (p: unknown, q: unknown) =>
      (p as { node: string }).node.localeCompare((q as { node: string }).node);
    return { result, received: received.sort(byNode) };
  },

  async handlerThatThrowsFailsTheRun(api: GraphApi) {
    const State = api.Annotation.Root({ foo: api.Annotation() });
    const graph = (
      new api.StateGraph(State) as unknown as {
        addNode(
          n: string,
          f: () => unknown,
          o: { errorHandler: Handler },
        ): {
          addEdge(a: string, b: string): { compile(): { invoke(i: Values): Promise<Values> } };
        };
      }
    )
      .addNode(
        "boom",
        () => {
          throw new Error("node boom");
        },
        {
          errorHandler: () => {
            throw new Error("handler boom");
          },
        },
      )
      .addEdge(api.START, "boom")
      .compile();
    try {
      await graph.invoke({ foo: "" });
      return "no error";
    } catch (error) {
      return (error as Error).message;
    }
  },
};
