import { describe, expect, it, vi } from "vitest";
import { isOptionalPeerLoaded } from "../../src/core/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";

const MANAGER = "@langchain/core/callbacks/manager";

const State = Annotation.Root({ n: Annotation<number>() });
const graph = new StateGraph(State)
  .addNode("inc", (s) => ({ n: s.n + 1 }))
  .addEdge(START, "inc")
  .addEdge("inc", END)
  .compile();

describe("tracing is paid for only by runs with callbacks", () => {
  it("a run without callbacks (and one streaming messages) never loads @langchain/core's callbacks", async () => {
    // Fresh copies of Keel's modules (other test files in this worker may have loaded the peer).
    vi.resetModules();
    const core = await import("../../src/core/index.js");
    const keel = await import("../../src/index.js");
    const fresh = new keel.StateGraph(keel.Annotation.Root({ n: keel.Annotation<number>() }))
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(keel.START, "inc")
      .compile();
    await fresh.invoke({ n: 0 });
    for await (const _ of await fresh.stream({ n: 0 }, { streamMode: ["updates", "messages"] }));
    expect(core.isOptionalPeerLoaded(MANAGER)).toBe(false);
  });

  it("streamEvents v3 and the tools mode (their LangChain handlers) load nothing of @langchain/core", async () => {
    vi.resetModules();
    const core = await import("../../src/core/index.js");
    const keel = await import("../../src/index.js");
    const fresh = new keel.StateGraph(keel.Annotation.Root({ n: keel.Annotation<number>() }))
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(keel.START, "inc")
      .compile();
    const run = await fresh.streamEvents({ n: 0 }, { version: "v3" });
    for await (const _ of run);
    expect(await run.output).toEqual({ n: 1 });
    for await (const _ of await fresh.stream({ n: 0 }, { streamMode: ["updates", "tools"] }));
    for (const module of ["@langchain/core/messages", "@langchain/core/callbacks/base", MANAGER])
      expect(core.isOptionalPeerLoaded(module)).toBe(false);
  });

  it("a run with callbacks loads it and reports the graph and its node", async () => {
    const names: string[] = [];
    const handler = { handleChainStart: (...args: unknown[]) => names.push(args[7] as string) };
    expect(await graph.invoke({ n: 1 }, { callbacks: [handler] })).toEqual({ n: 2 });
    expect(isOptionalPeerLoaded(MANAGER)).toBe(true);
    expect(names).toEqual(["LangGraph", "__start__", "inc"]);
  });
});

describe("streamEvents", () => {
  it("v2 returns LangChain's event stream at once (no await), ending with the graph's end", async () => {
    const events: string[] = [];
    for await (const event of graph.streamEvents({ n: 0 }, { version: "v2" }))
      events.push(`${event.event} ${event.name}`);
    expect(events[0]).toBe("on_chain_start LangGraph");
    expect(events.at(-1)).toBe("on_chain_end LangGraph");
  });

  it("an unknown version is refused with INVALID_ARGUMENT naming both versions", async () => {
    await expect(
      graph.streamEvents({ n: 0 }, { version: "v1" } as never) as unknown as Promise<unknown>,
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining('"v2"') });
  });
});
