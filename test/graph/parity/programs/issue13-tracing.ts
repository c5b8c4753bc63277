/** LangChain callbacks and `streamEvents` v2: the runs a graph reports, as LangGraph.js does. */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { RunnableLambda } from "@langchain/core/runnables";
import type { GraphApi } from "../api.js";
import { issue13ToolsPrograms } from "./issue13-tools.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' graphs, called the same way.
type Loose = Record<string, any>;

/** The LangGraph keys of a run's metadata (the rest holds random task ids). */
function langgraphKeys(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    node: metadata?.langgraph_node,
    step: metadata?.langgraph_step,
    triggers: metadata?.langgraph_triggers,
    ls_integration: metadata?.ls_integration,
    thread_id: metadata?.thread_id,
    user: metadata?.user,
  };
}

interface RecordedRun {
  name: string;
  parent: string | undefined;
  tags: string[];
  meta: Record<string, unknown>;
  input?: unknown;
  output?: unknown;
  error?: string;
}

/** Records every chain run: its name, its parent's name, tags, metadata, input and outcome. */
class Recorder extends BaseCallbackHandler {
  name = "Recorder";
  // Called in order and awaited, so the record is complete when the run returns.
  override awaitHandlers = true;
  readonly runs: RecordedRun[] = [];
  readonly events: string[] = [];
  private readonly byId = new Map<string, RecordedRun>();

  override handleChainStart(
    _chain: unknown,
    inputs: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    name?: string,
  ): void {
    const run: RecordedRun = {
      name: name ?? "?",
      parent: parentRunId ? this.byId.get(parentRunId)?.name : undefined,
      tags: tags ?? [],
      meta: langgraphKeys(metadata),
      input: inputs,
    };
    this.byId.set(runId, run);
    this.runs.push(run);
    this.events.push(`start ${run.name}`);
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    const run = this.byId.get(runId);
    if (run) run.output = outputs;
    this.events.push(`end ${run?.name}`);
  }

  override handleChainError(error: unknown, runId: string): void {
    const run = this.byId.get(runId);
    if (run) run.error = (error as Error).message;
    this.events.push(`error ${run?.name}`);
  }
}

function state(api: GraphApi) {
  return api.Annotation.Root({
    items: api.Annotation({
      reducer: (a: string[], b: string[]) => a.concat(b),
      default: () => [],
    }),
  });
}

/** A node calling a LangChain runnable without passing its config, then a conditional edge. */
function routedGraph(api: GraphApi) {
  const echo = RunnableLambda.from((text: string) => `${text}!`).withConfig({ runName: "echo" });
  return new api.StateGraph(state(api))
    .addNode("first", async () => ({ items: [await echo.invoke("a")] }))
    .addNode("second", () => ({ items: ["b"] }))
    .addEdge(api.START, "first")
    .addConditionalEdges("first", (s: Loose) => (s.items.length > 1 ? api.END : "second"))
    .addEdge("second", api.END)
    .compile() as unknown as Loose;
}

/**
 * Runs `fn` with LangSmith tracing switched on by the environment only (`LANGSMITH_TRACING`), the
 * LangSmith client's HTTP calls answered here (its fetch hook: nothing reaches the network), and
 * returns the names of the runs it posted, sorted (batching decides their order).
 */
async function postedRunNames(fn: () => Promise<unknown>): Promise<string[]> {
  const fetchKey = Symbol.for("ls:fetch_implementation");
  const global = globalThis as Record<symbol, unknown>;
  const bodies: string[] = [];
  global[fetchKey] = async (_url: string, init?: { body?: unknown }) => {
    const body = init?.body;
    if (typeof body === "string") bodies.push(body);
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
      bodies.push(new TextDecoder().decode(body as ArrayBuffer));
    else if (body && typeof (body as Blob).text === "function")
      bodies.push(await (body as Blob).text());
    return new Response("{}", { status: 200 });
  };
  process.env.LANGSMITH_TRACING = "true";
  try {
    await fn();
  } finally {
    delete process.env.LANGSMITH_TRACING;
  }
  // The client posts in batches, on a timer: wait for the graph's run to go out.
  for (let i = 0; i < 100 && !bodies.some((b) => b.includes('"name":"LangGraph"')); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 200));
  delete global[fetchKey];
  // Each run is posted once, as its whole record (`post`), or its start and its end.
  const names = new Set<string>();
  for (const body of bodies)
    for (const match of body.matchAll(
      /name="(?:post|patch)\.([0-9a-f-]+)"[^{]*\{[^\r\n]*?"name":"([^"]+)"/g,
    ))
      names.add(`${match[1]} ${match[2]}`);
  return [...names].map((entry) => entry.split(" ")[1]!).sort();
}

export const issue13TracingPrograms = {
  /**
   * `callbacks` see the graph's run, the hidden `__start__` task, a run per node (tags
   * `graph:step:<n>`, `langgraph_*` metadata), a runnable the node calls without its config
   * (found through LangChain's context), and the conditional edge as a `RunnableLambda`.
   */
  async callbackRuns(api: GraphApi) {
    const recorder = new Recorder();
    const result = await routedGraph(api).invoke(
      { items: [] },
      { callbacks: [recorder], metadata: { user: "u1" }, configurable: { thread_id: "t1" } },
    );
    return { result, runs: recorder.runs, events: recorder.events };
  },

  /** A failing node: its run and the graph's end in an error; nothing ends normally after. */
  async callbackRunsOnError(api: GraphApi) {
    const recorder = new Recorder();
    const graph = new api.StateGraph(state(api))
      .addNode("boom", () => {
        throw new Error("node failed");
      })
      .addEdge(api.START, "boom")
      .compile() as unknown as Loose;
    const error = await graph
      .invoke({ items: [] }, { callbacks: [recorder] })
      .catch((e: Error) => e.message);
    return { error, events: recorder.events };
  },

  /** A subgraph node: the subgraph's run sits under the node's run, its tasks under it. */
  async subgraphRuns(api: GraphApi) {
    const recorder = new Recorder();
    const inner = new api.StateGraph(state(api))
      .addNode("inner_step", () => ({ items: ["inner"] }))
      .addEdge(api.START, "inner_step")
      .compile({ name: "inner_graph" } as never);
    const outer = new api.StateGraph(state(api))
      .addNode("sub", inner as never)
      .addEdge(api.START, "sub")
      .compile() as unknown as Loose;
    await outer.invoke({ items: [] }, { callbacks: [recorder] });
    return recorder.runs.map(({ name, parent, tags, meta }) => ({ name, parent, tags, meta }));
  },

  /**
   * An entrypoint's run: no `__start__` run, and each `task()` call a run of its own under the
   * graph's (beside the entrypoint's), with its arguments as input.
   */
  async entrypointTaskRuns(api: GraphApi) {
    const { entrypoint, task } = api as unknown as Loose;
    const recorder = new Recorder();
    const double = task("double", async (n: number) => n * 2);
    const graph = entrypoint({ name: "doubler" }, async (items: number[]) =>
      Promise.all(items.map((n) => double(n))),
    );
    const result = await graph.invoke([1, 2], { callbacks: [recorder] });
    // The graph's and the entrypoint's own inputs and outputs are left out: Keel's show its
    // entrypoint's internal channels (a gap listed in docs/graph.md).
    return {
      result,
      firstChild: recorder.runs.find((run) => run.parent !== undefined)?.name,
      startRun: recorder.runs.some((run) => run.name === "__start__"),
      tasks: recorder.runs
        .filter((run) => run.name === "double")
        .map(({ parent, input, output }) => ({ parent, input, output })),
    };
  },

  /** `withConfig({ callbacks, runName })` and call-time callbacks: both see every run, once. */
  async boundAndCallCallbacks(api: GraphApi) {
    const bound = new Recorder();
    const call = new Recorder();
    const graph = routedGraph(api).withConfig({ callbacks: [bound], runName: "Renamed" });
    await graph.invoke({ items: [] }, { callbacks: [call] });
    return { bound: bound.events, call: call.events };
  },

  /** `streamEvents` v2: LangChain's event records of the graph, its tasks and what they call. */
  async streamEventsV2(api: GraphApi) {
    const events: Loose[] = [];
    for await (const event of routedGraph(api).streamEvents(
      { items: [] },
      { version: "v2", configurable: { thread_id: "e1" } },
    ) as AsyncIterable<Loose>)
      events.push(event);
    const record = (event: Loose) => ({
      event: event.event,
      name: event.name,
      tags: event.tags,
      meta: langgraphKeys(event.metadata),
      data: event.data,
    });
    // The graph's chunks reach its event stream through the reader, so where they fall among
    // the callback events is scheduling, not behaviour: compared in order, but apart.
    return {
      runs: events.filter((event) => event.event !== "on_chain_stream").map(record),
      chunks: events.filter((event) => event.event === "on_chain_stream").map(record),
    };
  },

  /**
   * Leaving a `streamEvents` v2 loop early cancels the run: what finished is saved, the next
   * node never starts.
   */
  async streamEventsV2Cancelled(api: GraphApi) {
    const started: string[] = [];
    const graph = new api.StateGraph(state(api))
      .addNode("first", () => ({ items: ["first"] }))
      .addNode("second", async (_state: unknown, config: Loose) => {
        started.push("second");
        await new Promise((resolve) => config.signal.addEventListener("abort", resolve));
        return { items: ["second"] };
      })
      .addNode("third", () => {
        started.push("third");
        return { items: ["third"] };
      })
      .addEdge(api.START, "first")
      .addEdge("first", "second")
      .addEdge("second", "third")
      .compile({ checkpointer: new api.MemorySaver() }) as unknown as Loose;
    let chunk: unknown;
    const stream = graph.streamEvents(
      { items: [] },
      { version: "v2", configurable: { thread_id: "x1" } },
    ) as AsyncIterable<Loose>;
    for await (const event of stream) {
      if (event.event === "on_chain_stream" && event.name === "LangGraph") {
        chunk = event.data.chunk;
        break;
      }
    }
    const snapshot = await graph.getState({ configurable: { thread_id: "x1" } });
    return {
      chunk,
      thirdStarted: started.includes("third"),
      values: snapshot.values,
      next: snapshot.next,
    };
  },

  /** A `streamEvents` v2 filter keeps only the runs asked for. */
  async streamEventsV2Filtered(api: GraphApi) {
    const names: string[] = [];
    const stream = routedGraph(api).streamEvents(
      { items: [] },
      { version: "v2" },
      { includeNames: ["echo"] },
    ) as AsyncIterable<Loose>;
    for await (const event of stream) names.push(`${event.event} ${event.name}`);
    return names;
  },

  /**
   * `LANGSMITH_TRACING=true` and no callbacks: the graph, its tasks and its conditional edge are
   * traced to LangSmith all the same (LangChain adds its tracer to every run it starts).
   */
  async tracedByEnvironment(api: GraphApi) {
    return postedRunNames(() => routedGraph(api).invoke({ items: [] }));
  },

  /**
   * The same nested messages streams under `LANGSMITH_TRACING`: the model reports to the outer
   * stream only; the inner one gets its node's returned message once. (Where the outer stream
   * shows a nested graph's tokens differs on purpose: see docs/agents.md, "Streaming tokens".)
   */
  async nestedMessagesStreamsTraced(api: GraphApi) {
    let inner: unknown;
    const names = await postedRunNames(async () => {
      inner = (await issue13ToolsPrograms.nestedMessagesStreamedOnce(api)).inner;
    });
    return { inner, traced: names.includes("LangGraph") };
  },
};
