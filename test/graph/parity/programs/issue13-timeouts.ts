/** Node timeouts: `addNode(…, { timeout })`, a `Send`'s own, `task`/`entrypoint`, retries. */
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

/** Waits `ms`, or rejects as soon as `signal` fires (a node that honours cancellation). */
function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    });
  });
}

/** What a caller can see of a timeout: the class, the node, the kind and the limit. */
async function timeoutOf(api: GraphApi, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (error) {
    const e = error as Loose;
    return {
      isTimeout: lib(api).isNodeTimeoutError(error),
      name: e.name,
      node: e.node,
      kind: e.kind,
      timeout: e.timeout,
    };
  }
}

function state(api: GraphApi) {
  return api.Annotation.Root({ x: api.Annotation() });
}

export const issue13TimeoutPrograms = {
  /** The error class alone: its fields, and the limit it needs for its kind. */
  async nodeTimeoutError(api: GraphApi) {
    const { NodeTimeoutError, isNodeTimeoutError } = lib(api);
    const error = new NodeTimeoutError({
      node: "n",
      elapsed: 12,
      kind: "idle",
      idleTimeout: 50,
      runTimeout: 100,
    });
    let missing = "no error";
    try {
      new NodeTimeoutError({ node: "n", elapsed: 1, kind: "run" });
    } catch {
      missing = "threw";
    }
    return {
      fields: [error.name, error.node, error.kind, error.timeout, error.runTimeout, error.elapsed],
      is: [isNodeTimeoutError(error), isNodeTimeoutError(new Error("x"))],
      missing,
    };
  },

  /** A node past its run timeout fails the run; its signal fired; a retry can succeed. */
  async nodeTimeout(api: GraphApi) {
    let signalled = false;
    const slow = new api.StateGraph(state(api))
      .addNode(
        "slow",
        async (s: Loose, config: Loose) => {
          config.signal?.addEventListener("abort", () => {
            signalled = true;
          });
          await wait(2000, config.signal);
          return { x: s.x + 1 };
        },
        { timeout: 30 } as never,
      )
      .addEdge(api.START, "slow")
      .addEdge("slow", api.END)
      .compile();
    const failed = await timeoutOf(api, () => slow.invoke({ x: 1 }));
    let attempts = 0;
    const flaky = new api.StateGraph(state(api))
      .addNode(
        "flaky",
        async (s: Loose, config: Loose) => {
          attempts += 1;
          if (attempts === 1) await wait(2000, config.signal);
          return { x: s.x + 1 };
        },
        { timeout: 30, retryPolicy: { maxAttempts: 3, initialInterval: 1 } } as never,
      )
      .addEdge(api.START, "flaky")
      .addEdge("flaky", api.END)
      .compile();
    const retried = await timeoutOf(api, () => flaky.invoke({ x: 0 }));
    return { failed, signalled, retried, attempts };
  },

  /** A `Send`'s idle timeout overrides the node's; `task` and `entrypoint` take one too. */
  async sendTaskAndEntrypointTimeouts(api: GraphApi) {
    const { Send, task, entrypoint } = lib(api);
    const graph = new api.StateGraph(state(api))
      .addNode(
        "slow",
        async (s: Loose, config: Loose) => {
          await wait(2000, config.signal);
          return { x: s.x + 1 };
        },
        { timeout: { idleTimeout: 5000 } } as never,
      )
      .addConditionalEdges(api.START, (s: Loose) => [
        new Send("slow", s, { timeout: { idleTimeout: 30 } }),
      ])
      .addEdge("slow", api.END)
      .compile();
    const send = await timeoutOf(api, () => graph.invoke({ x: 1 }));
    const slowTask = task({ name: "slow_task", timeout: 30 }, async (x: number) => {
      await wait(300);
      return x + 1;
    });
    const viaTask = await timeoutOf(api, () =>
      entrypoint("wf", async (x: number) => await slowTask(x)).invoke(1),
    );
    const viaEntrypoint = await timeoutOf(api, () =>
      entrypoint({ name: "wf_slow", timeout: 30 }, async (x: number, config: Loose) => {
        await wait(2000, config.signal);
        return x;
      }).invoke(1),
    );
    const fast = await timeoutOf(api, () =>
      entrypoint({ name: "wf_fast", timeout: 1000 }, async (x: number) => x + 1).invoke(1),
    );
    return {
      send,
      viaTask: (viaTask as Loose).isTimeout,
      viaEntrypoint: (viaEntrypoint as Loose).isTimeout,
      fast,
    };
  },
};
