/** Run control (draining) and the `lc_error_code` of errors users catch, on both libraries. */
import type { GraphApi, RunConfig, Values } from "../api.js";
import { thread } from "../harness.js";
import { concat } from "./common.js";

interface RunControlLike {
  requestDrain(reason?: string): void;
  readonly drainRequested: boolean;
  readonly drainReason: string | undefined;
}

interface ControlApi {
  RunControl: new () => RunControlLike;
  GraphDrained: abstract new (...args: never[]) => Error;
}

function control(api: GraphApi): ControlApi {
  return api as unknown as ControlApi;
}

function chainOf(api: GraphApi, first: (s: Values, c: RunConfig) => unknown) {
  const State = api.Annotation.Root({
    log: api.Annotation({ reducer: concat, default: () => [] }),
  });
  return new api.StateGraph(State)
    .addNode("a", first)
    .addNode("b", () => ({ log: ["b"] }))
    .addEdge(api.START, "a")
    .addEdge("a", "b");
}

async function caught(api: GraphApi, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (error) {
    const e = error as Error & { reason?: string; lc_error_code?: string };
    return {
      // Keel's message goes on with a hint after LangGraph.js's text.
      message: e.message.startsWith(`Graph drained: ${e.reason}`),
      isGraphDrained: error instanceof control(api).GraphDrained,
      reason: e.reason,
      lcErrorCode: e.lc_error_code,
    };
  }
}

export const issue13ControlPrograms = {
  /** A drain asked for in a node stops the run before the next step; the thread then resumes. */
  async drainStopsAndResumes(api: GraphApi) {
    const { RunControl } = control(api);
    const runControl = new RunControl();
    const before = [runControl.drainRequested, runControl.drainReason];
    let sawControl = false;
    const graph = chainOf(api, (_s, config) => {
      const given = (config as { control?: RunControlLike }).control;
      sawControl = given === runControl;
      given?.requestDrain("sigterm");
      return { log: ["a"] };
    }).compile({ checkpointer: new api.MemorySaver() });
    const config = thread("drain");
    const drained = await caught(api, () =>
      graph.invoke({ log: [] }, { ...config, control: runControl } as RunConfig),
    );
    const resumed = await graph.invoke(null, config);
    return { before, sawControl, drained, resumed, reason: runControl.drainReason };
  },

  /** Nodes get a fresh control when the caller gave none; a pre-drained control runs nothing. */
  async freshAndPreDrainedControl(api: GraphApi) {
    const { RunControl } = control(api);
    let fresh: unknown;
    const graph = chainOf(api, (_s, config) => {
      const given = (config as { control?: RunControlLike }).control;
      fresh = given instanceof RunControl && !given.drainRequested;
      return { log: ["a"] };
    }).compile();
    const plain = await graph.invoke({ log: [] });
    const preDrained = new RunControl();
    preDrained.requestDrain();
    const stopped = await caught(api, () =>
      graph.invoke({ log: [] }, { control: preDrained } as RunConfig),
    );
    return { plain, fresh, stopped };
  },

  /** LangGraph.js's `lc_error_code` on the errors a user catches. */
  async lcErrorCodes(api: GraphApi) {
    const State = api.Annotation.Root({ key: api.Annotation() });
    const twoWriters = new api.StateGraph(State)
      .addNode("x", () => ({ key: "x" }))
      .addNode("y", () => ({ key: "y" }))
      .addEdge(api.START, "x")
      .addEdge(api.START, "y")
      .compile();
    const badReturn = new api.StateGraph(State)
      .addNode("x", () => "not an object")
      .addEdge(api.START, "x")
      .compile();
    const loop = new api.StateGraph(State)
      .addNode("x", () => ({ key: "x" }))
      .addEdge(api.START, "x")
      .addEdge("x", "x")
      .compile();
    const code = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return "no error";
      } catch (error) {
        return (error as { lc_error_code?: string }).lc_error_code;
      }
    };
    return {
      concurrent: await code(() => twoWriters.invoke({ key: "in" })),
      badReturn: await code(() => badReturn.invoke({ key: "in" })),
      recursion: await code(() => loop.invoke({ key: "in" }, { recursionLimit: 3 })),
    };
  },
};

/** `config.executionInfo` and `config.serverInfo` as nodes see them. */
export const issue13ExecutionInfoPrograms = {
  async executionInfoAcrossRetries(api: GraphApi) {
    const seen: unknown[] = [];
    let firstTimes = new Set<unknown>();
    const State = api.Annotation.Root({ n: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode(
        "flaky",
        (_s, config) => {
          const info = (config as { executionInfo?: Record<string, unknown> }).executionInfo;
          const server = (config as { serverInfo?: unknown }).serverInfo;
          seen.push({
            threadId: info?.threadId,
            nodeAttempt: info?.nodeAttempt,
            hasTaskId: typeof info?.taskId === "string",
            hasCheckpointId: typeof info?.checkpointId === "string",
            nsNamesNode: String(info?.checkpointNs).startsWith("flaky:"),
            server,
          });
          firstTimes.add(info?.nodeFirstAttemptTime);
          if (seen.length < 2) throw new Error("once");
          return { n: 1 };
        },
        { retryPolicy: { maxAttempts: 2, initialInterval: 1, jitter: false } },
      )
      .addEdge(api.START, "flaky")
      .compile({ checkpointer: new api.MemorySaver() });
    await graph.invoke({ n: 0 }, {
      configurable: { thread_id: "info", assistant_id: "asst", graph_id: "g" },
    } as RunConfig);
    const oneFirstTime = firstTimes.size === 1;
    firstTimes = new Set();
    return { seen, oneFirstTime };
  },
};

/** `config.timeout`, `graph.stepTimeout`, and a graph invoked in a node without a config. */
export const issue13TimeoutPrograms = {
  async timeoutsAbortNodes(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const make = () => {
      const seen = { signalGiven: false, aborted: false, secondRan: false };
      const graph = new api.StateGraph(State)
        .addNode("slow", (_s, config) => {
          const signal = config.signal;
          seen.signalGiven = signal !== undefined;
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve({ log: ["slow"] }), 300);
            signal?.addEventListener("abort", () => {
              clearTimeout(timer);
              seen.aborted = true;
              reject(new Error("Aborted"));
            });
          });
        })
        .addNode("second", () => {
          seen.secondRan = true;
          return { log: ["second"] };
        })
        .addEdge(api.START, "slow")
        .addEdge("slow", "second")
        .compile();
      return { graph, seen };
    };
    const abortRe = /abort/i;
    const run = async (prepare: (g: unknown) => void, config: RunConfig) => {
      const { graph, seen } = make();
      prepare(graph);
      try {
        await graph.invoke({ log: [] }, config);
        return { rejected: false, seen };
      } catch (error) {
        return { rejected: abortRe.test(String((error as Error).message ?? error)), seen };
      }
    };
    return {
      runTimeout: await run(() => {}, { timeout: 20 } as RunConfig),
      stepTimeout: await run((g) => {
        (g as { stepTimeout?: number }).stepTimeout = 20;
      }, {}),
    };
  },

  /** A graph invoked inside a node without a config runs as that node's subgraph. */
  async nestedInvokeInheritsConfig(api: GraphApi) {
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const saver = new api.MemorySaver();
    const child = new api.StateGraph(State)
      .addNode("c", () => ({ log: ["c"] }))
      .addEdge(api.START, "c")
      .compile({ checkpointer: saver });
    const parent = new api.StateGraph(State)
      .addNode("p", async () => {
        const out = await child.invoke({ log: ["in"] });
        return { log: (out.log as string[]).map((x) => `child:${x}`) };
      })
      .addEdge(api.START, "p")
      .compile({ checkpointer: saver });
    const config = thread("nested");
    const result = await parent.invoke({ log: [] }, config);
    return { result, childOwnThread: (await child.getState(config)).values };
  },
};

/** NodeInterrupt, getCurrentTaskInput and an empty addNode list, on both libraries. */
export const issue13SmallApiPrograms = {
  async nodeInterruptAndTaskInput(api: GraphApi) {
    const extra = api as unknown as {
      NodeInterrupt: new (value: unknown) => Error;
      getCurrentTaskInput: () => unknown;
    };
    const State = api.Annotation.Root({ n: api.Annotation(), ok: api.Annotation() });
    const inputs: unknown[] = [];
    const helper = () => inputs.push(extra.getCurrentTaskInput());
    const graph = new api.StateGraph(State)
      .addNode("gate", (s) => {
        helper();
        if (!s.ok) throw new extra.NodeInterrupt({ need: "ok" });
        return { n: (s.n as number) + 1 };
      })
      .addEdge(api.START, "gate")
      .compile({ checkpointer: new api.MemorySaver() });
    const config = thread("node-interrupt");
    const paused = await graph.invoke({ n: 1, ok: false }, config);
    await graph.updateState(config, { ok: true });
    const resumed = await graph.invoke(null, config);
    let empty = "accepted";
    try {
      (new api.StateGraph(State) as unknown as { addNode(list: unknown[]): unknown }).addNode([]);
    } catch (error) {
      empty = (error as Error).message.startsWith("No nodes provided in `addNode`")
        ? "refused with LangGraph.js's message"
        : String(error);
    }
    // LangGraph.js gives a NodeInterrupt no id; Keel gives every interrupt one (resume by id).
    const pausedValues = (paused.__interrupt__ as { value: unknown }[]).map((i) => i.value);
    return { pausedValues, resumed, inputs, empty };
  },
};
