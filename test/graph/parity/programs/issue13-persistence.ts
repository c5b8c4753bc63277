/**
 * Issue 13, session 7: when a run's saves reach a saver that is not Keel's own (a `MemorySaver`
 * subclass): a step's task writes and its checkpoint are issued side by side, `sync` waits for
 * both before the next step, `async` goes on, and cancelling a run does not cancel a save that
 * started.
 */
import type { GraphApi } from "../api.js";
import { thread } from "../harness.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

interface Gate {
  promise: Promise<void>;
  open: () => void;
}

function gate(): Gate {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets every callback queued so far run (saves that could start, nodes that could run). */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A MemorySaver whose first task writes and first `loop` checkpoint wait for `release()`, and
 * say when they started.
 */
function gatedSaver(api: GraphApi) {
  const writesStarted = gate();
  const putStarted = gate();
  const released = gate();
  let gateWrites = true;
  let gatePut = true;
  class Gated extends lib(api).MemorySaver {
    async put(config: unknown, checkpoint: unknown, metadata: { source: string }) {
      if (gatePut && metadata.source === "loop") {
        gatePut = false;
        putStarted.open();
        await released.promise;
      }
      return super.put(config, checkpoint, metadata);
    }
    async putWrites(config: unknown, writes: unknown, taskId: string) {
      if (gateWrites) {
        gateWrites = false;
        writesStarted.open();
        await released.promise;
      }
      return super.putWrites(config, writes, taskId);
    }
  }
  return {
    saver: new Gated(),
    bothStarted: Promise.all([writesStarted.promise, putStarted.promise]),
    release: released.open,
  };
}

function chain(api: GraphApi, checkpointer: unknown, started: string[]) {
  const State = api.Annotation.Root({ value: api.Annotation() });
  return new api.StateGraph(State)
    .addNode("first", () => {
      started.push("first");
      return { value: "first" };
    })
    .addNode("second", () => {
      started.push("second");
      return { value: "second" };
    })
    .addEdge(api.START, "first")
    .addEdge("first", "second")
    .addEdge("second", api.END)
    .compile({ checkpointer });
}

/** Runs the chain with a gated saver: what had run once both saves started, and the result. */
async function gatedRun(api: GraphApi, durability: "sync" | "async") {
  const { saver, bothStarted, release } = gatedSaver(api);
  const started: string[] = [];
  const graph = chain(api, saver, started);
  const running = graph.invoke({ value: "in" }, { ...thread("1"), durability });
  // The sync run would hang here if the checkpoint waited for the writes before starting.
  await bothStarted;
  await settle();
  const whileHeld = [...started];
  release();
  const result = await running;
  return { whileHeld, result, after: started };
}

export const issue13PersistencePrograms = {
  /** sync: the step's writes and checkpoint start together; the next node waits for both. */
  async syncWaitsForWritesAndCheckpoint(api: GraphApi) {
    return gatedRun(api, "sync");
  },

  /** async: the next node starts while the step's writes and checkpoint are still held. */
  async asyncGoesOnWhileSaving(api: GraphApi) {
    const { saver, bothStarted, release } = gatedSaver(api);
    const secondStarted = gate();
    const State = api.Annotation.Root({ value: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("first", () => ({ value: "first" }))
      .addNode("second", () => {
        secondStarted.open();
        return { value: "second" };
      })
      .addEdge(api.START, "first")
      .addEdge("first", "second")
      .addEdge("second", api.END)
      .compile({ checkpointer: saver });
    const running = graph.invoke({ value: "in" }, { ...thread("1"), durability: "async" });
    await bothStarted;
    // Resolves only if `second` runs while both saves are held.
    await secondStarted.promise;
    release();
    return { result: await running };
  },

  /**
   * A run aborted while its input checkpoint is being saved: the node started beside the save,
   * sees the abort, and the save completes.
   */
  async abortDoesNotCancelAStartedPut(api: GraphApi) {
    const logs: string[] = [];
    const putting = gate();
    const nodeStarted = gate();
    const released = gate();
    class SlowPut extends lib(api).MemorySaver {
      async put(config: unknown, checkpoint: unknown, metadata: unknown) {
        logs.push("putting checkpoint");
        putting.open();
        await released.promise;
        const saved = await super.put(config, checkpoint, metadata);
        logs.push("put checkpoint");
        return saved;
      }
    }
    let sawAbort = false;
    const graph = new (lib(api).Graph)()
      .addNode("agent", async (_input: unknown, config: { signal?: AbortSignal }) => {
        logs.push("agent.start");
        nodeStarted.open();
        try {
          await new Promise<void>((_resolve, reject) => {
            config.signal?.addEventListener("abort", () => {
              sawAbort = true;
              reject(new Error("aborted"));
            });
          });
        } finally {
          logs.push("agent.end");
        }
      })
      .addEdge(api.START, "agent")
      .addEdge("agent", api.END)
      .compile({ checkpointer: new SlowPut() });
    const controller = new AbortController();
    const running = graph.invoke(1, { ...thread("1"), signal: controller.signal }).then(
      () => "resolved",
      () => "rejected",
    );
    await Promise.all([putting.promise, nodeStarted.promise]);
    controller.abort();
    released.open();
    const ended = await running;
    await settle();
    return { ended, sawAbort, logs: logs.sort() };
  },
};
