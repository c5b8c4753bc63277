/**
 * LangGraph.js's functional API (`entrypoint`, `task`, `getPreviousState`, `entrypoint.final`)
 * and a saver subclass written for LangGraph, each a program run on both libraries.
 */
import type { GraphApi, RunConfig } from "../api.js";
import { outcome, thread } from "../harness.js";

interface EntrypointLike {
  invoke(input: unknown, config?: RunConfig): Promise<unknown>;
  stream(input: unknown, config?: RunConfig): Promise<AsyncIterable<unknown>>;
  getState(config: RunConfig): Promise<{ tasks: readonly { interrupts: readonly unknown[] }[] }>;
  updateState(config: RunConfig, values: unknown): Promise<unknown>;
}

type Fn = (...args: never[]) => unknown;

interface FuncApi {
  entrypoint: ((
    options: { name: string; checkpointer?: unknown },
    fn: (input: never, config: RunConfig & { writer?: (chunk: unknown) => void }) => unknown,
  ) => EntrypointLike) & { final(value: { value: unknown; save: unknown }): unknown };
  task: <F extends Fn>(
    options: string | { name: string; retry?: Record<string, unknown> },
    fn: F,
  ) => (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
  getPreviousState: () => unknown;
}

function func(api: GraphApi): FuncApi {
  return api as unknown as FuncApi;
}

async function gather(stream: Promise<AsyncIterable<unknown>>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of await stream) chunks.push(chunk);
  return chunks;
}

export const issue13FuncPrograms = {
  /** Tasks run in parallel; their results come back in call order. */
  async tasksInEntrypoint(api: GraphApi) {
    const { entrypoint, task } = func(api);
    let mapperCalls = 0;
    const mapper = task("mapper", (input: number) => {
      mapperCalls += 1;
      return `${input}${input}`;
    });
    const graph = entrypoint({ name: "graph" }, async (inputs: number[]) =>
      Promise.all(inputs.map((i) => mapper(i))),
    );
    return { result: await graph.invoke([1, 2, 3]), mapperCalls };
  },

  /** `stream` yields each task's result as it finishes, then the entrypoint's. */
  async streamsTaskUpdates(api: GraphApi) {
    const { entrypoint, task } = func(api);
    const foo = task("foo", async (a: string) => `${a}foo`);
    const bar = task("bar", async (a: string) => `${a}bar`);
    const graph = entrypoint(
      { name: "graph", checkpointer: new api.MemorySaver() },
      async (a: string) => bar(await foo(a)),
    );
    const config = thread("stream");
    return {
      updates: await gather(graph.stream("0", config)),
      custom: await gather(graph.stream("1", { ...config, streamMode: "custom" })),
    };
  },

  /** A paused entrypoint replays finished tasks' results on resume; interrupts in tasks too. */
  async interruptsReplayTasks(api: GraphApi) {
    const { entrypoint, task } = func(api);
    let doubles = 0;
    const double = task("double", async (x: number) => {
      doubles += 1;
      return 2 * x;
    });
    const ask = task("ask", (q: string) => api.interrupt(q));
    const graph = entrypoint(
      { name: "graph", checkpointer: new api.MemorySaver() },
      async (_input: unknown) => {
        const values: unknown[] = [];
        for (const x of [1, 2]) {
          values.push(await double(x));
          values.push(await ask(`q${x}`));
        }
        return { values };
      },
    );
    const config = thread("replay");
    const first = await graph.invoke({}, config);
    const pendingInterrupts = (await graph.getState(config)).tasks[0]?.interrupts.length;
    const second = await graph.invoke(new api.Command({ resume: "a" }), config);
    const third = await graph.invoke(new api.Command({ resume: "b" }), config);
    return { first, pendingInterrupts, second, third, doubles };
  },

  /** getPreviousState, entrypoint.final and updateState keep a value across a thread's runs. */
  async previousState(api: GraphApi) {
    const { entrypoint, getPreviousState } = func(api);
    const graph = entrypoint(
      { name: "graph", checkpointer: new api.MemorySaver() },
      async (n: number) => {
        const previous = (getPreviousState() as number | undefined) ?? 0;
        return entrypoint.final({ value: n + previous, save: n });
      },
    );
    const config = thread("previous");
    const results = [await graph.invoke(1, config), await graph.invoke(2, config)];
    await graph.updateState(config, 10);
    results.push(await graph.invoke(3, config));
    results.push(await graph.invoke(4, thread("other")));
    return results;
  },

  /** A task's retry policy, a task's error, and generator functions refused. */
  async retriesAndErrors(api: GraphApi) {
    const { entrypoint, task } = func(api);
    let attempts = 0;
    const flaky = task(
      { name: "flaky", retry: { maxAttempts: 3, initialInterval: 1, logWarning: false } },
      () => {
        attempts += 1;
        if (attempts < 3) throw new Error("flaky failed");
        return "ok";
      },
    );
    const broken = task("broken", () => {
      throw new Error("task error");
    });
    const retried = await entrypoint({ name: "g1" }, async () => flaky()).invoke([]);
    const failed = await outcome(
      api,
      () => entrypoint({ name: "g2" }, async () => broken()).invoke([]),
      true,
    );
    let refused = "accepted";
    try {
      task("gen", function* () {} as unknown as Fn);
    } catch (error) {
      // Keel's message goes on with a hint; both start with LangGraph.js's sentence.
      refused =
        /^Generators are disallowed as tasks\. For streaming responses, use config\.write\./.test(
          String((error as Error).message),
        )
          ? "refused with LangGraph.js's message"
          : String(error);
    }
    return { retried, attempts, failed, refused };
  },

  /** A saver subclass that forwards `put(config, checkpoint, metadata)` still saves the values. */
  async saverSubclassForwardsThreeArguments(api: GraphApi) {
    const Base = api.MemorySaver as unknown as new () => {
      put(config: RunConfig, checkpoint: unknown, metadata: unknown): Promise<RunConfig>;
    };
    class ThreeArgs extends Base {
      override put(config: RunConfig, checkpoint: unknown, metadata: unknown): Promise<RunConfig> {
        return super.put(config, checkpoint, metadata);
      }
    }
    const State = api.Annotation.Root({ n: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("inc", (s) => ({ n: (s.n as number) + 1 }))
      .addEdge(api.START, "inc")
      .compile({ checkpointer: new ThreeArgs() });
    const config = thread("three");
    await graph.invoke({ n: 1 }, config);
    const again = await graph.invoke({ n: 5 }, config);
    return { again, state: (await graph.getState(config)).values };
  },

  /** getCurrentTaskInput(): the entrypoint's input inside it, a task's arguments inside a task. */
  async currentTaskInputInFunctionalApi(api: GraphApi) {
    const { entrypoint, task } = func(api);
    const { getCurrentTaskInput } = api as unknown as { getCurrentTaskInput: () => unknown };
    const seen: unknown[] = [];
    const check = task("check", (input: { count: number }, extra: string) => {
      seen.push(getCurrentTaskInput());
      return { count: input.count + 1, extra };
    });
    const graph = entrypoint({ name: "graph" }, async (input: { count: number }) => {
      seen.push(getCurrentTaskInput());
      const out = await check(input, "x");
      seen.push(getCurrentTaskInput());
      return out;
    });
    const result = await graph.invoke({ count: 0 });
    return { result, seen };
  },

  /**
   * A graph streamed inside a node without a config (it inherits the node's): the stream defaults
   * to `values`, and what the inner function writes reaches the caller's custom stream.
   */
  async streamInsideEntrypoint(api: GraphApi) {
    const { entrypoint } = func(api);
    const checkpointer = new api.MemorySaver();
    const inner = entrypoint({ name: "inner", checkpointer }, async (input: string, config) => {
      config.writer?.(`hello ${input}`);
      return `goodbye, ${input}`;
    });
    const State = api.Annotation.Root({ s: api.Annotation() });
    const innerGraph = new api.StateGraph(State)
      .addNode("x", (st) => ({ s: `${String(st.s)}!` }))
      .addEdge(api.START, "x")
      .compile();
    const outer = entrypoint({ name: "outer", checkpointer }, async (input: string, config) => {
      for await (const chunk of await inner.stream(input)) config.writer?.(chunk);
      for await (const chunk of await innerGraph.stream({ s: input })) config.writer?.(chunk);
      return "done";
    });
    const config = thread("nested");
    return {
      invoked: await outer.invoke("world", config),
      custom: await gather(outer.stream("world", { ...config, streamMode: "custom" })),
    };
  },
};
