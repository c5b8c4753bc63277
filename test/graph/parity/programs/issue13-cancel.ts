/**
 * Cancellation on both libraries: every node gets a `config.signal`, a step timeout stops a
 * subgraph node's own steps, and an aborted run leaves its thread at the last good state.
 */
import type { GraphApi, RunConfig, Values } from "../api.js";
import { thread } from "../harness.js";
import { concat, pause } from "./common.js";

function logState(api: GraphApi): unknown {
  return api.Annotation.Root({ log: api.Annotation({ reducer: concat, default: () => [] }) });
}

/** What a node can tell of its `config.signal`. */
function signalSeen(config: RunConfig): unknown {
  const signal = (config as { signal?: AbortSignal }).signal;
  return { isSignal: signal instanceof AbortSignal, aborted: signal?.aborted };
}

/** `slow` waits `ms` (ignoring its signal), then `after` runs: counted in `ran`. */
function slowThenAfter(api: GraphApi, ms: number, ran: string[], checkpointer?: unknown) {
  return new api.StateGraph(logState(api))
    .addNode("slow", async () => {
      ran.push("slow");
      await pause(ms);
      return { log: ["slow"] };
    })
    .addNode("after", () => {
      ran.push("after");
      return { log: ["after"] };
    })
    .addEdge(api.START, "slow")
    .addEdge("slow", "after")
    .compile(checkpointer === undefined ? {} : { checkpointer });
}

function aborted(error: unknown): unknown {
  return error instanceof Error && /abort/i.test(`${error.name} ${error.message}`);
}

export const issue13CancelPrograms = {
  /**
   * A run without a signal still hands every node one (plain node, a subgraph node's nodes, a
   * graph invoked inside a node), and it is not aborted.
   */
  async nodesAlwaysGetASignal(api: GraphApi) {
    const seen: Record<string, unknown> = {};
    const child = new api.StateGraph(logState(api))
      .addNode("inner", (_s: Values, config: RunConfig) => {
        seen[`inner${Object.keys(seen).length}`] = signalSeen(config);
        return { log: ["inner"] };
      })
      .addEdge(api.START, "inner")
      .compile();
    const graph = new api.StateGraph(logState(api))
      .addNode("plain", (_s: Values, config: RunConfig) => {
        seen.plain = signalSeen(config);
        return { log: ["plain"] };
      })
      .addNode("sub", child)
      .addNode("nested", async (_s: Values, config: RunConfig) => {
        const out = await child.invoke({ log: [] }, config);
        return { log: out.log as string[] };
      })
      .addEdge(api.START, "plain")
      .addEdge("plain", "sub")
      .addEdge("sub", "nested")
      .compile();
    const result = await graph.invoke({ log: [] });
    return { result, seen };
  },

  /** A parent's step timeout stops a subgraph node: its next node never runs. */
  async stepTimeoutStopsSubgraphNode(api: GraphApi) {
    const ran: string[] = [];
    const child = slowThenAfter(api, 40, ran);
    const graph = new api.StateGraph(logState(api))
      .addNode("sub", child)
      .addEdge(api.START, "sub")
      .compile() as unknown as { stepTimeout?: number; invoke(i: unknown): Promise<unknown> };
    graph.stepTimeout = 5;
    let error: unknown;
    try {
      await graph.invoke({ log: [] });
    } catch (caught) {
      error = aborted(caught);
    }
    await pause(80);
    return { error, ran };
  },

  /**
   * An external abort during a node: the call rejects, the thread keeps the last finished run's
   * state, and running again completes from it.
   */
  async abortedRunKeepsLastGoodState(api: GraphApi) {
    const ran: string[] = [];
    const graph = slowThenAfter(api, 40, ran, new api.MemorySaver());
    const config = thread("cancel");
    const first = await graph.invoke({ log: ["first"] }, config);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    let error: unknown;
    try {
      await graph.invoke({ log: ["second"] }, {
        ...config,
        signal: controller.signal,
      } as RunConfig);
    } catch (caught) {
      error = aborted(caught);
    }
    await pause(60);
    const kept = (await graph.getState(config)).values;
    const again = await graph.invoke(null, config);
    return { first, error, kept, again, ran };
  },
};
