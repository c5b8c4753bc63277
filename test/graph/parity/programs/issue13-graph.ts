/** `Graph` (no state channels), `withConfig` and `batch`. */
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

export const issue13GraphPrograms = {
  /** Values pass from node to node, falsy values too; `batch` runs one invoke per input. */
  async plainGraph(api: GraphApi) {
    const { Graph } = lib(api);
    const chain = new Graph()
      .addNode("add_one", (x: number) => x + 1)
      .addNode("double", async (x: number) => x * 2)
      .addEdge(api.START, "add_one")
      .addEdge("add_one", "double")
      .addEdge("double", api.END)
      .compile();
    const falsy: unknown[] = [];
    for (const value of [null, 0, "", [], {}]) {
      const graph = new Graph()
        .addNode("constant", () => value)
        .addEdge(api.START, "constant")
        .addEdge("constant", api.END)
        .compile();
      falsy.push(await graph.invoke(1));
    }
    return {
      chain: await chain.invoke(2),
      batch: await chain.batch([1, 2, 3]),
      falsy,
    };
  },

  /** `withConfig` defaults under each call's own config; `batch` on a state graph. */
  async withConfigAndBatch(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    const seen: unknown[] = [];
    const graph = (
      new api.StateGraph(State)
        .addNode("first", (s, config) => {
          seen.push((config as Loose).configurable?.user ?? null);
          return { n: (s.n as number) + 1 };
        })
        .addNode("second", (s) => ({ n: (s.n as number) * 10 }))
        .addEdge(api.START, "first")
        .addEdge("first", "second")
        .compile() as unknown as Loose
    ).withConfig({ configurable: { user: "default" } });
    const limited = graph.withConfig({ recursionLimit: 1 });
    let limit = "no error";
    try {
      await limited.invoke({ n: 1 });
    } catch (error) {
      limit = error instanceof api.GraphRecursionError ? "GraphRecursionError" : "other";
    }
    return {
      plain: await graph.invoke({ n: 1 }),
      own: await graph.invoke({ n: 2 }, { configurable: { user: "own" } }),
      batch: await graph.batch([{ n: 1 }, { n: 2 }]),
      limit,
      seen,
    };
  },
};
