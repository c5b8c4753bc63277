/**
 * Graph-level conformance: the same graph programs (interrupts and resume, time travel, forks,
 * updateState, threads that continue, Send fan-out) run on MemorySaver and on the saver under
 * test must give the same transcripts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Annotation,
  type BaseCheckpointSaver,
  Command,
  END,
  entrypoint,
  getPreviousState,
  interrupt,
  MemorySaver,
  Send,
  START,
  StateGraph,
  task,
} from "../../src/index.js";
import type { SaverFixture } from "./saver.case.js";

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  answer: Annotation<string>(),
});

type Program = (saver: BaseCheckpointSaver, thread: string) => Promise<unknown>;

/** Interrupt ids hash the checkpoint they were raised in, which differs between runs. */
function withoutInterruptIds(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, item) => (key === "id" ? undefined : item)));
}

/** State snapshots without ids and timestamps, which differ between runs. */
function stable(snapshot: {
  values: unknown;
  next: string[];
  metadata?: { step: number; source: string } | undefined;
}) {
  return {
    values: snapshot.values,
    next: snapshot.next,
    step: snapshot.metadata?.step,
    source: snapshot.metadata?.source,
  };
}

function chain(saver: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode("a", () => ({ log: ["a"], count: 1 }))
    .addNode("b", () => ({ log: ["b"], count: 10 }))
    .addNode("c", () => ({ log: ["c"], count: 100 }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile({ checkpointer: saver });
}

const PROGRAMS: Record<string, Program> = {
  "a thread continues where it stopped": async (saver, thread) => {
    const graph = chain(saver);
    const config = { configurable: { thread_id: thread } };
    const first = await graph.invoke({ log: ["in"] }, config);
    const second = await graph.invoke({ log: ["again"] }, config);
    return { first, second, state: stable(await graph.getState(config)) };
  },
  "history lists every step, newest first": async (saver, thread) => {
    const graph = chain(saver);
    const config = { configurable: { thread_id: thread } };
    await graph.invoke({ log: ["in"] }, config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(stable(snapshot));
    return history;
  },
  "an interrupt pauses and Command({ resume }) continues": async (saver, thread) => {
    const graph = new StateGraph(State)
      .addNode("ask", () => {
        const answer = interrupt({ question: "name?" }) as string;
        return { answer, log: ["asked"] };
      })
      .addNode("after", (state) => ({ log: [`hello ${state.answer}`] }))
      .addEdge(START, "ask")
      .addEdge("ask", "after")
      .addEdge("after", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: thread } };
    const paused = await graph.invoke({ log: ["start"] }, config);
    const whilePaused = stable(await graph.getState(config));
    const done = await graph.invoke(new Command({ resume: "ada" }), config);
    return withoutInterruptIds({
      paused,
      whilePaused,
      done,
      after: stable(await graph.getState(config)),
    });
  },
  "a functional entrypoint resumes with its finished tasks' results and previous state": async (
    saver,
    thread,
  ) => {
    let doubles = 0;
    const double = task("double", async (x: number) => {
      doubles += 1;
      return { doubled: 2 * x };
    });
    const ask = task("ask", (question: string) => interrupt(question) as string);
    const graph = entrypoint({ name: "flow", checkpointer: saver }, async (x: number) => {
      const previous = getPreviousState<{ total: number } | undefined>();
      const { doubled } = await double(x);
      const answer = await ask(`keep ${doubled}?`);
      return { total: (previous?.total ?? 0) + doubled, answer };
    });
    const config = { configurable: { thread_id: thread } };
    const paused = await graph.invoke(3, config);
    const done = await graph.invoke(new Command({ resume: "yes" }), config);
    await graph.invoke(1, config);
    const next = await graph.invoke(new Command({ resume: "no" }), config);
    // Each resumed run reused double's saved result; the next run read the previous total.
    expect({ doubles, done, next }).toEqual({
      doubles: 2,
      done: { total: 6, answer: "yes" },
      next: { total: 8, answer: "no" },
    });
    return withoutInterruptIds({ paused, done, next });
  },
  "interruptBefore stops before a node and null input resumes": async (saver, thread) => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile({ checkpointer: saver, interruptBefore: ["b"] });
    const config = { configurable: { thread_id: thread } };
    const stopped = await graph.invoke({ log: [] }, config);
    const next = (await graph.getState(config)).next;
    const done = await graph.invoke(null, config);
    return { stopped, next, done };
  },
  "time travel: replaying and forking from a past checkpoint": async (saver, thread) => {
    const graph = chain(saver);
    const config = { configurable: { thread_id: thread } };
    await graph.invoke({ log: ["in"] }, config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const afterA = history.find((snapshot) => snapshot.next[0] === "b");
    if (!afterA) throw new Error("no checkpoint before b");
    const forked = await graph.updateState(afterA.config, { log: ["edited"] });
    const replayed = await graph.invoke(null, forked);
    const newHistory = [];
    for await (const snapshot of graph.getStateHistory(config)) {
      const { values, next, step, source } = stable(snapshot);
      newHistory.push(`${step} ${source} [${next.join(",")}] ${JSON.stringify(values)}`);
    }
    const oldBranch = stable(await graph.getState(history[0]?.config ?? config));
    return { replayed, newHistory, oldBranch };
  },
  "a task that finished without writes is not run again on resume": async (saver, thread) => {
    const runs = { quiet: 0, ask: 0 };
    const graph = new StateGraph(State)
      .addNode("quiet", () => {
        runs.quiet++;
      })
      .addNode("ask", () => {
        runs.ask++;
        return { answer: interrupt("?") as string };
      })
      .addEdge(START, "quiet")
      .addEdge(START, "ask")
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: thread } };
    await graph.invoke({ log: [] }, config);
    const next = (await graph.getState(config)).next;
    const done = await graph.invoke(new Command({ resume: "ok" }), config);
    return { next, done, runs };
  },
  "Send fans out and the join sees every result": async (saver, thread) => {
    const graph = new StateGraph(State)
      .addNode("split", () => ({ log: ["split"] }))
      .addNode("work", (state: { answer?: string }) => ({
        log: [`work ${state.answer}`],
        count: 1,
      }))
      .addNode("join", (state) => ({ answer: `joined ${state.count}` }))
      .addEdge(START, "split")
      .addConditionalEdges("split", () =>
        ["x", "y", "z"].map((answer) => new Send("work", { answer })),
      )
      .addEdge("work", "join")
      .addEdge("join", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: thread } };
    const result = await graph.invoke({ log: [] }, config);
    return { result, state: stable(await graph.getState(config)) };
  },
};

/**
 * Transcripts checked literally: where MemorySaver could share a bug with the saver under test,
 * and where MemorySaver is not the reference: its values are keyed by (channel, version), so a
 * fork that reaches a version number the old branch used overwrites the old branch (the old
 * branch's history then shows the fork's values). The durable savers keep both branches; this is
 * the correct transcript.
 */
const EXPECTED: Record<string, unknown> = {
  // Literal, so that MemorySaver is checked too.
  "a task that finished without writes is not run again on resume": {
    next: ["ask"],
    done: { log: [], count: 0, answer: "ok" },
    runs: { quiet: 1, ask: 2 },
  },
  "time travel: replaying and forking from a past checkpoint": {
    replayed: { log: ["in", "a", "edited", "b", "c"], count: 111 },
    newHistory: [
      '4 loop [] {"log":["in","a","edited","b","c"],"count":111}',
      '3 loop [c] {"log":["in","a","edited","b"],"count":11}',
      '2 update [b] {"log":["in","a","edited"],"count":1}',
      '3 loop [] {"log":["in","a","b","c"],"count":111}',
      '2 loop [c] {"log":["in","a","b"],"count":11}',
      '1 loop [b] {"log":["in","a"],"count":1}',
      '0 loop [a] {"log":["in"],"count":0}',
      '-1 input [__start__] {"log":[],"count":0}',
    ],
    oldBranch: {
      values: { log: ["in", "a", "b", "c"], count: 111 },
      next: [],
      step: 3,
      source: "loop",
    },
  },
};

export function runGraphConformance(options: {
  name: string;
  available?: () => Promise<boolean>;
  newSaver(): Promise<SaverFixture>;
  /** Programs this saver is known to get wrong, with the reason (run as `it.fails`). */
  knownGaps?: Record<string, string>;
}): void {
  describe(`graph conformance through ${options.name} (same transcript as MemorySaver)`, async () => {
    const available = options.available ? await options.available() : true;
    let fixture: SaverFixture;
    beforeAll(async () => {
      if (available) fixture = await options.newSaver();
    });
    afterAll(async () => {
      if (available) await fixture.cleanup();
    });
    let counter = 0;
    for (const [name, program] of Object.entries(PROGRAMS)) {
      const gap = options.knownGaps?.[name];
      const test = !available ? it.skip : gap ? it.fails : it;
      test(gap ? `${name} [known gap: ${gap}]` : name, async () => {
        const thread = `g-${process.pid}-${++counter}`;
        const expected = EXPECTED[name] ?? (await program(new MemorySaver(), thread));
        const actual = await program(fixture.saver, thread);
        expect(actual).toEqual(expected);
      });
    }
  });
}
