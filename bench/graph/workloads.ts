/**
 * The benchmark graphs, built against the same injected API as the parity suite so that Keel and
 * LangGraph.js run the very same program. Each workload says how many node executions one run is.
 */
import type {
  CompiledGraphLike,
  GraphApi,
  RunConfig,
  Values,
} from "../../test/graph/parity/api.js";

export interface Workload {
  name: string;
  /** What one unit of the reported figure is. */
  unit: string;
  /** Units per run: node executions for chains, 1 for whole-run figures. */
  unitsPerRun: number;
  /** The peer/keel ratio the issue asks for. */
  target: number;
  /** Builds a fresh graph (and checkpointer) and returns a function doing one run on it. */
  prepare(api: GraphApi): () => Promise<Values>;
}

const add = (current: number, update: number): number => current + update;

function counterState(api: GraphApi): unknown {
  return api.Annotation.Root({
    n: api.Annotation(),
    total: api.Annotation({ reducer: add, default: () => 0 }),
  });
}

function increment(state: Values): Values {
  return { n: (state.n as number) + 1 };
}

function chain(api: GraphApi, length: number, checkpointer?: unknown): CompiledGraphLike {
  let graph = new api.StateGraph(counterState(api));
  for (let index = 0; index < length; index++) graph = graph.addNode(`node${index}`, increment);
  graph = graph.addEdge(api.START, "node0");
  for (let index = 1; index < length; index++)
    graph = graph.addEdge(`node${index - 1}`, `node${index}`);
  graph = graph.addEdge(`node${length - 1}`, api.END);
  return graph.compile(checkpointer === undefined ? {} : { checkpointer });
}

const chainLength = 100;
const chainConfig: RunConfig = { recursionLimit: chainLength + 10 };

export const chainPlain: Workload = {
  name: "100-node chain, no checkpointer",
  unit: "µs/node",
  unitsPerRun: chainLength,
  target: 30,
  prepare(api) {
    const graph = chain(api, chainLength);
    return () => graph.invoke({ n: 0 }, chainConfig);
  },
};

export const chainMemorySaver: Workload = {
  name: "100-node chain, MemorySaver",
  unit: "µs/node",
  unitsPerRun: chainLength,
  target: 20,
  prepare(api) {
    const graph = chain(api, chainLength, new api.MemorySaver());
    let runs = 0;
    return () =>
      graph.invoke({ n: 0 }, { ...chainConfig, configurable: { thread_id: `chain-${runs++}` } });
  },
};

export const fanOutJoin: Workload = {
  name: "10-way fan-out + join",
  unit: "µs/run",
  unitsPerRun: 1,
  target: 20,
  prepare(api) {
    let graph = new api.StateGraph(counterState(api))
      .addNode("fork", increment)
      .addNode("join", increment)
      .addEdge(api.START, "fork");
    const workers: string[] = [];
    for (let index = 0; index < 10; index++) {
      const name = `worker${index}`;
      workers.push(name);
      graph = graph.addNode(name, () => ({ total: index })).addEdge("fork", name);
    }
    const compiled = graph.addEdge(workers, "join").addEdge("join", api.END).compile();
    return () => compiled.invoke({ n: 0 });
  },
};

export const sendWorkers: Workload = {
  name: "Send to 100 workers",
  unit: "µs/run",
  unitsPerRun: 1,
  target: 20,
  prepare(api) {
    const items = Array.from({ length: 100 }, (_, index) => index);
    const graph = new api.StateGraph(counterState(api))
      .addNode("worker", (input) => ({ total: input.item as number }))
      .addNode("reduce", increment)
      .addConditionalEdges(api.START, () => items.map((item) => new api.Send("worker", { item })))
      .addEdge("worker", "reduce")
      .addEdge("reduce", api.END)
      .compile();
    return () => graph.invoke({ n: 0 });
  },
};

export const workloads: readonly Workload[] = [
  chainPlain,
  chainMemorySaver,
  fanOutJoin,
  sendWorkers,
];
