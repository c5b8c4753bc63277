/** Subgraph streaming, the `tasks`/`checkpoints` stream modes and `streamEvents` v3. */
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' graphs, called the same way.
type Loose = Record<string, any>;

const sum = (a: number, b: number) => a + b;

function graphs(api: GraphApi, checkpointer?: unknown) {
  const State = api.Annotation.Root({
    count: api.Annotation({ reducer: sum, default: () => 0 }),
  });
  const inner = new api.StateGraph(State)
    .addNode("inner_step", () => ({ count: 100 }))
    .addEdge(api.START, "inner_step")
    .addEdge("inner_step", api.END)
    .compile();
  const outer = new api.StateGraph(State)
    .addNode("outer_step", () => ({ count: 1 }))
    .addNode("sub", inner as never)
    .addEdge(api.START, "outer_step")
    .addEdge("outer_step", "sub")
    .addEdge("sub", api.END)
    .compile(checkpointer ? { checkpointer } : {}) as unknown as Loose;
  return outer;
}

/** A namespace without its task ids (they are random): `["sub"]`. */
const names = (namespace: string[]) => namespace.map((segment) => segment.split(":")[0]);

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export const issue13StreamingPrograms = {
  /** `subgraphs: true` tags every chunk with its namespace, for one mode and for several. */
  async subgraphStreaming(api: GraphApi) {
    const graph = graphs(api);
    const single = (await collect(
      await graph.stream({ count: 0 }, { streamMode: "updates", subgraphs: true }),
    )) as [string[], unknown][];
    const multi = (await collect(
      await graph.stream({ count: 0 }, { streamMode: ["values", "updates"], subgraphs: true }),
    )) as [string[], string, unknown][];
    const plain = await collect(await graph.stream({ count: 0 }, { streamMode: "updates" }));
    return {
      single: single.map(([ns, chunk]) => [names(ns), chunk]),
      multi: multi.map(([ns, mode, chunk]) => [names(ns), mode, chunk]),
      plain,
    };
  },

  /** The `tasks` mode: a start and a result per task; `checkpoints` with a saver. */
  async tasksAndCheckpointsModes(api: GraphApi) {
    const graph = graphs(api, new api.MemorySaver());
    const config = { configurable: { thread_id: "t" } };
    const chunks = (await collect(
      await graph.stream({ count: 0 }, { ...config, streamMode: ["tasks", "checkpoints"] }),
    )) as [string, Loose][];
    return chunks.map(([mode, payload]) =>
      mode === "tasks"
        ? [
            mode,
            payload.name,
            "result" in payload
              ? { result: payload.result }
              : { input: payload.input, triggers: payload.triggers },
          ]
        : [mode, payload.values, payload.next, payload.metadata?.source, payload.metadata?.step],
    );
  },

  /** streamEvents v3: methods in order per namespace, values, updates, subgraph views, output. */
  async streamEventsV3(api: GraphApi) {
    const graph = graphs(api, new api.MemorySaver());
    const run = await graph.streamEvents(
      { count: 0 },
      { version: "v3", configurable: { thread_id: "v3" } },
    );
    const subgraphs: unknown[] = [];
    for await (const sub of run.subgraphs) {
      const events = (await collect(sub)) as Loose[];
      subgraphs.push({
        name: sub.name,
        index: sub.index,
        methods: events.map((e) => e.method),
        values: events.filter((e) => e.method === "values").map((e) => e.params.data),
      });
    }
    const events = (await collect(run)) as Loose[];
    const root = events.filter((e) => e.params.namespace.length === 0);
    const seqs = events.map((e) => e.seq);
    return {
      rootMethods: root.map((e) => e.method),
      rootValues: root.filter((e) => e.method === "values").map((e) => e.params.data),
      updates: events
        .filter((e) => e.method === "updates")
        .map((e) => [names(e.params.namespace), e.params.data]),
      ordered: seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] as number)),
      subgraphs,
      output: await run.output,
      values: await collect(run.values),
      interrupted: run.interrupted,
    };
  },
};
