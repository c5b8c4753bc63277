/** Debug stream events and AbortSignal cancellation. */
import type { GraphApi } from "../api.js";
import { collectStream, describeError, thread } from "../harness.js";
import { counterState, num } from "./common.js";

interface DebugEvent {
  type?: string;
  step?: number;
  payload?: {
    name?: string;
    input?: unknown;
    result?: unknown;
    error?: unknown;
    values?: unknown;
    next?: unknown;
  };
}

/** The parts of a debug event a user reads; ids, timestamps and trigger names are internal. */
function debugView(chunk: unknown): unknown {
  const event = chunk as DebugEvent;
  const payload = event.payload ?? {};
  return {
    type: event.type,
    step: event.step,
    name: payload.name,
    input: payload.input,
    result: payload.result,
    values: payload.values,
    next: payload.next,
  };
}

export const runPrograms = {
  /** streamMode "debug": task and task_result events per step, checkpoint events with a saver. */
  async debugStream(api: GraphApi) {
    const build = (checkpointer?: unknown) =>
      new api.StateGraph(counterState(api))
        .addNode("a", (state) => ({ n: num(state, "n") + 1, log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(api.START, "a")
        .addEdge("a", "b")
        .compile(checkpointer === undefined ? {} : { checkpointer });
    const plain = await collectStream(build(), { n: 0 }, { streamMode: "debug" });
    const saved = await collectStream(
      build(new api.MemorySaver()),
      { n: 0 },
      { ...thread("debug"), streamMode: "debug" },
    );
    return { plain: plain.map(debugView), withCheckpointer: saved.map(debugView) };
  },

  /** Aborting from inside the third step stops the run with an AbortError. */
  async abortSignal(api: GraphApi) {
    const controller = new AbortController();
    let runs = 0;
    const graph = new api.StateGraph(counterState(api))
      .addNode("spin", (state) => {
        runs++;
        if (runs === 3) controller.abort();
        return { n: num(state, "n") + 1 };
      })
      .addEdge(api.START, "spin")
      .addEdge("spin", "spin")
      .compile();
    let error: unknown;
    try {
      await graph.invoke({ n: 0 }, { signal: controller.signal, recursionLimit: 100 });
    } catch (caught) {
      error = caught;
    }
    const already = new AbortController();
    const reason = new Error("stopped by caller");
    already.abort(reason);
    let preAborted: unknown;
    try {
      await graph.invoke({ n: 0 }, { signal: already.signal });
    } catch (caught) {
      preAborted = caught;
    }
    return {
      error: describeError(api, error),
      runsBeforeStop: runs,
      preAbortedThrowsReason: preAborted === reason,
    };
  },

  /** Which calls without usable input or thread fail, and which run. */
  async missingInputAndThread(api: GraphApi) {
    const cases = missingInputCases(api);
    const threw: Record<string, unknown> = {};
    for (const [name, run] of Object.entries(cases)) {
      try {
        threw[name] = { threw: false, result: await run() };
      } catch {
        threw[name] = { threw: true };
      }
    }
    return threw;
  },

  /** The class names and codes of those errors (LangGraph.js: EmptyInputError, or a plain Error). */
  async missingInputErrorNames(api: GraphApi) {
    const names: Record<string, unknown> = {};
    for (const [name, run] of Object.entries(missingInputCases(api))) {
      try {
        await run();
        names[name] = "no error";
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        names[name] = {
          name: error instanceof Error ? error.name : typeof error,
          code: typeof code === "string" ? code : null,
        };
      }
    }
    return names;
  },
};

function missingInputCases(api: GraphApi): Record<string, () => Promise<unknown>> {
  const State = api.Annotation.Root({ n: api.Annotation() });
  const build = (checkpointer?: unknown) =>
    new api.StateGraph(State)
      .addNode("a", () => ({ n: 1 }))
      .addEdge(api.START, "a")
      .compile(checkpointer === undefined ? {} : { checkpointer });
  const plain = build();
  const saved = build(new api.MemorySaver());
  return {
    nullInputNoCheckpointer: () => plain.invoke(null),
    undefinedInputNoCheckpointer: () => plain.invoke(undefined),
    emptyObjectInput: () => plain.invoke({}),
    nullInputUnknownThread: () => saved.invoke(null, thread("unknown")),
    noThreadIdWithCheckpointer: () => saved.invoke({ n: 0 }),
  };
}
