/** The low-level `Pregel` class with `Channel.subscribeTo` / `Channel.writeTo` nodes. */
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

async function collect(stream: Promise<AsyncIterable<unknown>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of await stream) out.push(chunk);
  return out;
}

async function outcome(run: () => Promise<unknown>, api: GraphApi): Promise<unknown> {
  try {
    return { value: await run() };
  } catch (error) {
    if (error instanceof api.GraphRecursionError) return { error: "GraphRecursionError" };
    if (error instanceof api.InvalidUpdateError) return { error: "InvalidUpdateError" };
    return { error: (error as Error).message };
  }
}

export const issue13PregelPrograms = {
  /** Two nodes chained by a channel; single and list input/output channels; writeTo extras. */
  async chain(api: GraphApi) {
    const { Pregel, Channel, LastValue } = lib(api);
    const addOne = (x: number) => x + 1;
    const one = Channel.subscribeTo("input")
      .pipe(addOne)
      .pipe(Channel.writeTo(["inbox"]));
    const two = Channel.subscribeTo("inbox")
      .pipe(addOne)
      .pipe(
        Channel.writeTo(["output"], { fixed: 5, plusOne: (x: number) => x + 1, none: () => null }),
      );
    const channels = () => ({
      input: new LastValue(),
      inbox: new LastValue(),
      output: new LastValue(),
      fixed: new LastValue(),
      plusOne: new LastValue(),
      none: new LastValue(),
    });
    const app = new Pregel({
      nodes: { one, two },
      channels: channels(),
      inputChannels: "input",
      outputChannels: "output",
      streamChannels: ["inbox", "output"],
    });
    const objects = new Pregel({
      nodes: { one, two },
      channels: channels(),
      inputChannels: ["input"],
      outputChannels: ["output", "fixed", "plusOne", "none"],
    });
    return {
      invoke: await app.invoke(2),
      outputKeys: await app.invoke(2, { outputKeys: ["output"] }),
      objects: await objects.invoke({ input: 2 }),
      limit: await outcome(() => app.invoke(2, { recursionLimit: 1 }), api),
      updates: await collect(app.stream(2, { streamMode: "updates" })),
      values: await collect(app.stream(2)),
      batch: await app.batch([1, 2, 3]),
      streamChannels: app.streamChannelsList,
    };
  },

  /** Topics gather a step's writes and clear after it; two writes to a LastValue conflict. */
  async topicsAndConflicts(api: GraphApi) {
    const { Pregel, Channel, LastValue, Topic, BinaryOperatorAggregate } = lib(api);
    const addOne = (x: number) => x + 1;
    const fanIn = new Pregel({
      nodes: {
        a: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(Channel.writeTo(["inbox"])),
        b: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(Channel.writeTo(["inbox"])),
        c: Channel.subscribeTo("inbox")
          .pipe((xs: number[]) => xs.map((x) => x + 10))
          .pipe(Channel.writeTo(["output"])),
      },
      channels: { inbox: new Topic(), output: new LastValue(), input: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
    });
    const conflict = new Pregel({
      nodes: {
        a: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(Channel.writeTo(["output"])),
        b: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(Channel.writeTo(["output"])),
      },
      channels: { output: new LastValue(), input: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
    });
    const joined = new Pregel({
      nodes: {
        one: Channel.subscribeTo(["input"])
          .join(["total"])
          .pipe((x: { input: number; total?: number }) => (x.total ?? 0) + x.input)
          .pipe(Channel.writeTo(["output", "total"])),
      },
      channels: {
        total: new BinaryOperatorAggregate((a: number, b: number) => a + b),
        input: new LastValue(),
        output: new LastValue(),
      },
      inputChannels: "input",
      outputChannels: "output",
    });
    const silent = new Pregel({
      nodes: {
        one: Channel.subscribeTo("input")
          .pipe(addOne)
          .pipe(Channel.writeTo(["between"])),
        two: Channel.subscribeTo("between").pipe(addOne),
      },
      channels: { input: new LastValue(), between: new LastValue(), output: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
    });
    return {
      fanIn: await fanIn.invoke(2),
      conflict: await outcome(() => conflict.invoke(2), api),
      joined: await joined.invoke(2),
      silent: await silent.invoke(2),
      noChannels: await outcome(async () => new Pregel({ nodes: {} }), api).then((r) =>
        "error" in (r as object) ? "threw" : "accepted",
      ),
    };
  },

  /** A checkpointer keeps channel values across invokes of a thread; `getState` reads them. */
  async checkpointed(api: GraphApi) {
    const { Pregel, Channel, LastValue, BinaryOperatorAggregate } = lib(api);
    const saver = new api.MemorySaver() as Loose;
    const app = new Pregel({
      nodes: {
        one: Channel.subscribeTo(["input"])
          .join(["total"])
          .pipe((x: { input: number; total?: number }) => (x.total ?? 0) + x.input)
          .pipe(Channel.writeTo(["output", "total"]))
          .pipe((x: number) => {
            if (x > 10) throw new Error("too large");
            return x;
          }),
      },
      channels: {
        total: new BinaryOperatorAggregate((a: number, b: number) => a + b),
        input: new LastValue(),
        output: new LastValue(),
      },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: saver,
    });
    const thread = { configurable: { thread_id: "1" } };
    const first = await app.invoke(2, thread);
    const second = await app.invoke(3, thread);
    const failed = await outcome(() => app.invoke(4, thread), api);
    const state = await app.getState(thread);
    const history: unknown[] = [];
    const configs: unknown[] = [];
    for await (const snapshot of app.getStateHistory(thread)) {
      history.push(snapshot.values);
      configs.push(snapshot.config);
    }
    // `before` and `filter` page through the history as a state graph's do.
    const page: unknown[] = [];
    for await (const snapshot of app.getStateHistory(thread, { limit: 1, before: configs[0] }))
      page.push(snapshot.config);
    let inputs = 0;
    for await (const _ of app.getStateHistory(thread, { filter: { source: "input" } })) inputs++;
    return {
      first,
      second,
      failed,
      values: state.values,
      next: state.next,
      history,
      pageIsSecond: page.length === 1 && JSON.stringify(page[0]) === JSON.stringify(configs[1]),
      inputs,
    };
  },

  /**
   * `retryPolicy` retries a node that throws: the whole chain again, the failed attempt's writes
   * dropped; an error past `maxAttempts` fails the run and leaves the checkpoint as it was.
   */
  async retryPolicy(api: GraphApi) {
    const { Pregel, Channel, LastValue, BinaryOperatorAggregate, MemorySaver } = lib(api);
    let failures = 0;
    const attempts: number[] = [];
    const app = new Pregel({
      nodes: {
        one: Channel.subscribeTo(["input"])
          .join(["total"])
          .pipe((x: { input: number; total?: number }) => (x.total ?? 0) + x.input)
          .pipe(Channel.writeTo([], { output: (x: number) => x, total: (x: number) => x }))
          .pipe((x: number) => {
            attempts.push(x);
            if (x > 10) throw new Error("too large");
            if (x > 4 && failures === 0) {
              failures += 1;
              throw new Error("flaky");
            }
            return x;
          }),
      },
      channels: {
        total: new BinaryOperatorAggregate(
          (a: number, b: number) => a + b,
          () => 0,
        ),
        input: new LastValue(),
        output: new LastValue(),
      },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: new MemorySaver(),
      retryPolicy: { maxAttempts: 2, initialInterval: 1, jitter: false, logWarning: false },
    });
    const thread = { configurable: { thread_id: "1" } };
    const first = await app.invoke(2, thread);
    const second = await app.invoke(3, thread);
    const failed = await outcome(() => app.invoke(6, thread), api);
    const state = await app.getState(thread);
    return { first, second, failed, attempts, total: state.values.total };
  },

  /**
   * `callbacks` on a `Pregel` graph: a chain run for the graph and one per task under it, named
   * after the node, tagged with its step, with the node's metadata; the node's own runs below.
   */
  async tracedWithCallbacks(api: GraphApi) {
    const { Pregel, Channel, LastValue } = lib(api);
    const runs: Loose[] = [];
    const names = new Map<string, string>();
    const handler = {
      handleChainStart(
        _chain: unknown,
        _inputs: unknown,
        runId: string,
        parentRunId?: string,
        tags?: string[],
        metadata?: Loose,
        _runType?: string,
        name?: string,
      ) {
        names.set(runId, name ?? "?");
        runs.push({
          name,
          parent: parentRunId ? names.get(parentRunId) : undefined,
          tags: (tags ?? []).filter((tag) => tag.startsWith("graph:")),
          node: metadata?.langgraph_node,
          step: metadata?.langgraph_step,
        });
      },
    };
    const app = new Pregel({
      nodes: {
        one: Channel.subscribeTo("input")
          .pipe((x: number) => x + 1)
          .pipe(Channel.writeTo(["inbox"])),
        two: Channel.subscribeTo("inbox")
          .pipe((x: number) => x * 10)
          .pipe(Channel.writeTo(["output"])),
      },
      channels: { input: new LastValue(), inbox: new LastValue(), output: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
    });
    const output = await app.invoke(1, { callbacks: [handler] });
    // The graph's run and its tasks' (what LangChain reports inside a node is its own business).
    const top = runs.filter((run) => run.parent === undefined || run.parent === "LangGraph");
    return { output, top };
  },

  /**
   * `updateState` runs only the named (or chosen) node's writers on the values and saves the
   * result after the given checkpoint, as an `update` one; the latest state is then the update.
   */
  async updateState(api: GraphApi) {
    const { Pregel, Channel, LastValue, BinaryOperatorAggregate, MemorySaver } = lib(api);
    const app = new Pregel({
      nodes: {
        one: Channel.subscribeTo(["input"])
          .join(["total"])
          .pipe((x: { input: number; total?: number }) => (x.total ?? 0) + x.input)
          .pipe(Channel.writeTo(["output", "total"]))
          .pipe((x: number) => {
            if (x > 10) throw new Error("too large");
            return x;
          }),
      },
      channels: {
        total: new BinaryOperatorAggregate((a: number, b: number) => a + b),
        input: new LastValue(),
        output: new LastValue(),
      },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: new MemorySaver(),
    });
    const thread = { configurable: { thread_id: "1" } };
    await app.invoke(2, thread);
    await app.invoke(3, thread);
    const configs: Loose[] = [];
    for await (const snapshot of app.getStateHistory(thread)) configs.push(snapshot.config);
    // From the checkpoint before the latest; 20 would make the node throw, but only writers run.
    const next = await app.updateState(configs[1], 20);
    const sources: string[] = [];
    for await (const snapshot of app.getStateHistory(thread))
      sources.push(snapshot.metadata.source);
    const latest = await app.getState(thread);
    const updated = await app.getState(next);
    const two = new Pregel({
      nodes: {
        a: Channel.subscribeTo("input").pipe(Channel.writeTo(["mid"])),
        b: Channel.subscribeTo("mid").pipe(Channel.writeTo(["output"])),
      },
      channels: { input: new LastValue(), mid: new LastValue(), output: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: new MemorySaver(),
    });
    const fresh = await outcome(
      () => two.updateState({ configurable: { thread_id: "x" } }, 1),
      api,
    );
    await two.invoke(5, thread);
    // After a run, the node that saw the newest version (b) is the one written as.
    await two.updateState(thread, 7);
    const asB = await two.getState(thread);
    await two.updateState(thread, 8, "a");
    const asA = await two.getState(thread);
    const unknown = await outcome(() => two.updateState(thread, 1, "zzz"), api);
    return {
      newer: next.configurable.checkpoint_id > configs[0]?.configurable.checkpoint_id,
      sources,
      values: updated.values,
      next: updated.next,
      latestIsUpdate:
        latest.config.configurable.checkpoint_id === updated.config.configurable.checkpoint_id &&
        JSON.stringify(latest.values) === JSON.stringify(updated.values),
      fresh,
      asB: [asB.values, asB.next, asB.metadata.step],
      asA: [asA.values, asA.next],
      unknown,
    };
  },

  /** A `DeltaChannel` among a checkpointed Pregel's channels keeps its value across invokes. */
  async deltaChannelCheckpointed(api: GraphApi) {
    const { Pregel, Channel, LastValue, DeltaChannel } = lib(api);
    const append = (state: number[], writes: number[][]) => state.concat(...writes);
    const make = (saver: unknown) =>
      new Pregel({
        nodes: {
          one: Channel.subscribeTo(["input"])
            .pipe((x: { input: number }) => [x.input])
            .pipe(Channel.writeTo(["log"])),
        },
        channels: { log: new DeltaChannel(append), input: new LastValue() },
        inputChannels: "input",
        outputChannels: "log",
        checkpointer: saver,
      });
    const saver = new api.MemorySaver();
    const thread = { configurable: { thread_id: "1" } };
    const runs: unknown[] = [];
    for (let i = 1; i <= 3; i += 1) runs.push(await make(saver).invoke(i, thread));
    const state = await make(saver).getState(thread);
    return { runs, values: state.values };
  },
};
