/**
 * How a pause shows in the streams and what it saves, on both libraries: a task's interrupt is
 * streamed as the task finishes, in its own graph's namespace; a static pause (interruptBefore/
 * After) only by the outermost graph; a resumed run replays saved writes as cached; `exit`
 * durability keeps a paused step's finished writes pending and saves a `checkpointer: true`
 * subgraph at its end.
 */
import type { GraphApi, RunConfig } from "../api.js";
import { thread } from "../harness.js";
import { pause } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' graphs, called the same way.
type Loose = Record<string, any>;

/** Stream chunks with namespaces reduced to their node and interrupt ids to a mark. */
async function collect(stream: unknown): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of (await stream) as AsyncIterable<unknown>) out.push(plain(chunk));
  return out;
}

function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "string") return value.includes(":") ? value.split(":")[0] : value;
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = key === "id" && typeof item === "string" ? "<id>" : plain(item);
  return out;
}

function appendState(api: GraphApi): unknown {
  return api.Annotation.Root({
    text: api.Annotation({ reducer: (a: string, b: string) => a + b, default: () => "" }),
  });
}

/** A parent running, in one step, a subgraph that pauses before its second node and a plain node. */
function parallelPausingSubgraph(api: GraphApi, durability?: string): Loose {
  const State = appendState(api);
  const inner = new api.StateGraph(State)
    .addNode("first", async () => {
      await pause(20);
      return { text: "sub" };
    })
    .addNode("second", () => ({ text: "+second" }))
    .addEdge(api.START, "first")
    .addEdge("first", "second")
    .compile({ interruptBefore: ["second"] });
  const graph = new api.StateGraph(State)
    .addNode("inner", inner)
    .addNode("side", () => ({ text: "|side" }))
    .addNode("after", () => ({ text: "|after" }))
    .addEdge(api.START, "inner")
    .addEdge(api.START, "side")
    .addEdge(["inner", "side"], "after")
    .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
  return {
    graph,
    config: (id: string) => ({ ...thread(id), ...(durability ? { durability } : {}) }),
  };
}

export const issue13PausesPrograms = {
  /**
   * Each task that calls interrupt() is announced as it finishes (before a returned update of the
   * same step), in its graph's namespace and again in the parent's for a subgraph; the run's
   * values with the finished writes applied come last.
   */
  async interruptsStreamedAsTasksFinish(api: GraphApi) {
    const State = appendState(api);
    const inner = new api.StateGraph(State)
      .addNode("ask", () => ({ text: String(api.interrupt("inner question")) }))
      .addEdge(api.START, "ask")
      .compile();
    const graph = new api.StateGraph(State)
      .addNode("asker", () => ({ text: String(api.interrupt("question")) }))
      .addNode("sent", async () => ({ text: "sent" }))
      .addNode("sub", inner)
      .addConditionalEdges(api.START, (state: Record<string, unknown>) => [
        "asker",
        "sub",
        new api.Send("sent", state),
      ])
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    const config = {
      ...thread("pauses-streamed"),
      streamMode: ["updates", "values"],
      subgraphs: true,
    };
    return collect(graph.stream({ text: "" }, config));
  },

  /** A synchronous node's interrupt is streamed before a synchronous Send task's update. */
  async syncInterruptBeforeSyncUpdate(api: GraphApi) {
    const State = appendState(api);
    const graph = new api.StateGraph(State)
      .addNode("asker", () => ({ text: String(api.interrupt("question")) }))
      .addNode("sent", () => ({ text: "sent" }))
      .addConditionalEdges(api.START, (state: Record<string, unknown>) => [
        new api.Send("sent", state),
        "asker",
      ])
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    return collect(graph.stream({ text: "" }, thread("pauses-sync")));
  },

  /**
   * A subgraph's interruptBefore is announced once, by the parent; the values stream shows the
   * step's finished writes before it; the resumed run replays them marked as cached.
   */
  async subgraphStaticPauseAndResume(api: GraphApi) {
    const { graph, config } = parallelPausingSubgraph(api);
    const first = await collect(
      graph.stream({ text: "" }, { ...config("pauses-static"), subgraphs: true }),
    );
    const resumed = await collect(graph.stream(null, config("pauses-static")));
    const values = await collect(
      graph.stream({ text: "" }, { ...config("pauses-values"), streamMode: "values" }),
    );
    return { first, resumed, values };
  },

  /** With `exit` durability a resumed step applies its tasks' writes in the step's order. */
  async exitDurabilityResumeOrder(api: GraphApi) {
    const { graph, config } = parallelPausingSubgraph(api, "exit");
    const paused = await graph.invoke({ text: "" }, config("pauses-exit"));
    const state = await graph.getState(config("pauses-exit"));
    return {
      paused,
      saved: state.values,
      resumed: await graph.invoke(null, config("pauses-exit")),
    };
  },

  /** With `exit` durability a `checkpointer: true` subgraph still keeps its state across calls. */
  async exitDurabilityOwnSubgraphState(api: GraphApi) {
    const State = appendState(api);
    const inner = new api.StateGraph(State)
      .addNode("count", (state: Record<string, unknown>) => ({ text: `[${String(state.text)}]` }))
      .addEdge(api.START, "count");
    const graph = new api.StateGraph(api.Annotation.Root({ text: api.Annotation() }))
      .addNode("inner", (inner as Loose).compile({ checkpointer: true }))
      .addEdge(api.START, "inner")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    const config: RunConfig & { durability: string } = {
      ...thread("pauses-own"),
      durability: "exit",
    };
    const first = await graph.invoke({ text: "a" }, config);
    const second = await graph.invoke({ text: "b" }, config);
    return { first, second };
  },
};
