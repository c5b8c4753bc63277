import { describe, expect, it } from "vitest";
import {
  Annotation,
  Command,
  GraphValueError,
  InvalidUpdateError,
  isKeelError,
  type KeelError,
  START,
  StateGraph,
} from "../../src/index.js";

const State = Annotation.Root({
  name: Annotation<string>(),
  items: Annotation<string[]>({
    reducer: (a, b) => {
      if (b.includes("boom")) throw new Error("cannot merge boom");
      return a.concat(b);
    },
    default: () => [],
  }),
});

async function failure(promise: Promise<unknown>): Promise<KeelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isKeelError(error)).toBe(true);
  return error as KeelError;
}

function oneNode(fn: () => unknown) {
  return new StateGraph(State)
    .addNode("writer", fn as never)
    .addEdge(START, "writer")
    .compile();
}

describe("bad input is a clear error naming the node and the key", () => {
  it("a node returning a key the state does not have", async () => {
    const error = await failure(oneNode(() => ({ name: "x", nmae: "typo" })).invoke({}));
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error.code).toBe("INVALID_UPDATE");
    expect(error.details).toMatchObject({ node: "writer", key: "nmae" });
    expect(error.message).toContain('Node "writer" returned key "nmae"');
  });

  it("a node returning something that is not an object", async () => {
    for (const bad of [42, "text", ["a"], true]) {
      const error = await failure(oneNode(() => bad).invoke({}));
      expect(error.code).toBe("INVALID_UPDATE");
      expect(error.details).toMatchObject({ node: "writer" });
      expect(error.message).toContain("must return a plain object");
    }
  });

  it("a node returning a Map, a Set, a Date or a class instance (not silently an empty update)", async () => {
    class Update {
      name = "from a class";
    }
    const cases: Array<[unknown, string]> = [
      [new Map([["name", "x"]]), "an instance of Map"],
      [new Set(["name"]), "an instance of Set"],
      [new Date(0), "an instance of Date"],
      [new Update(), "an instance of Update"],
    ];
    for (const [bad, described] of cases) {
      const error = await failure(oneNode(() => bad).invoke({}));
      expect(error).toBeInstanceOf(InvalidUpdateError);
      expect(error.code).toBe("INVALID_UPDATE");
      expect(error.details).toMatchObject({ node: "writer", received: described });
      expect(error.message).toContain(`Node "writer" returned ${described}`);
    }
    // Plain objects still pass, including ones without a prototype.
    const bare = Object.assign(Object.create(null) as object, { name: "bare" });
    expect(await oneNode(() => bare).invoke({})).toEqual({ name: "bare", items: [] });
  });

  it("a conditional edge returning undefined says so in plain words", async () => {
    const graph = new StateGraph(State)
      .addNode("router", () => ({}))
      .addEdge(START, "router")
      .addConditionalEdges("router", () => undefined)
      .compile();
    const error = await failure(graph.invoke({}));
    expect(error.message).toContain('node "router" returned undefined;');
  });

  it("an unknown goto target (Command, conditional edge, Send)", async () => {
    const viaCommand = await failure(oneNode(() => new Command({ goto: "nowhere" })).invoke({}));
    expect(viaCommand.code).toBe("UNKNOWN_GOTO_TARGET");
    expect(viaCommand.details).toMatchObject({ node: "writer", target: "nowhere" });

    const viaBranch = new StateGraph(State)
      .addNode("router", () => ({}))
      .addEdge(START, "router")
      .addConditionalEdges("router", () => "ghost")
      .compile();
    const branchError = await failure(viaBranch.invoke({}));
    expect(branchError.code).toBe("UNKNOWN_GOTO_TARGET");
    expect(branchError.details).toMatchObject({ node: "router", target: "ghost" });

    const { Send } = await import("../../src/index.js");
    const viaSend = await failure(
      oneNode(() => new Command({ goto: new Send("ghost", {}) })).invoke({}),
    );
    expect(viaSend.details).toMatchObject({ node: "writer", target: "ghost" });
  });

  it("a reducer that throws", async () => {
    const error = await failure(oneNode(() => ({ items: ["boom"] })).invoke({ items: ["ok"] }));
    expect(error.code).toBe("REDUCER_FAILED");
    expect(error.details).toMatchObject({ node: "writer", key: "items" });
    expect((error.cause as Error).message).toBe("cannot merge boom");
  });

  it("bad graph input is refused the same way", async () => {
    const error = await failure(oneNode(() => ({})).invoke({ unknown: 1 } as never));
    expect(error.details).toMatchObject({ node: "__start__", key: "unknown" });
    await expect(oneNode(() => ({})).invoke(null)).rejects.toMatchObject({ code: "EMPTY_INPUT" });
  });

  it("a node that throws fails the run with its own error, unchanged (as LangGraph.js)", async () => {
    class QuotaError extends Error {}
    const boom = new QuotaError("model unavailable");
    const thrown = await oneNode(() => {
      throw boom;
    })
      .invoke({})
      .catch((e: unknown) => e);
    expect(thrown).toBe(boom);
    const odd = await failure(
      oneNode(() => {
        throw "a string";
      }).invoke({}),
    );
    expect(odd.code).toBe("NODE_FAILED");
    expect(odd.details).toMatchObject({ node: "writer" });
  });
});

describe("compile rejects malformed graphs with every problem listed", () => {
  const node = () => ({});

  it("unknown edge targets and sources, and a missing entry", () => {
    const builder = new StateGraph(State).addNode("a", node).addEdge("a", "b").addEdge("c", "a");
    let error: unknown;
    try {
      builder.compile();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphValueError);
    const codes = ((error as KeelError).details.problems as Array<{ code: string }>)
      .map((p) => p.code)
      .sort();
    expect(codes).toEqual(["missing-entry", "unknown-edge-source", "unknown-edge-target"]);
  });

  it("unknown path-map targets, ends targets and interrupt nodes", () => {
    const builder = new StateGraph(State)
      .addNode("a", node, { ends: ["zz"] })
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "x", { x: "missing" });
    expect(() => builder.compile({ interruptBefore: ["nope"] })).toThrow(
      /maps to unknown node "missing".*"zz".*interruptBefore names unknown node "nope"/,
    );
  });

  it("reserved and duplicate names, and a node named like a state key", () => {
    expect(() => new StateGraph(State).addNode(START, node)).toThrow(/reserved/);
    expect(() => new StateGraph(State).addNode("__end__", node)).toThrow(/reserved/);
    expect(() => new StateGraph(State).addNode("a", node).addNode("a", node)).toThrow(
      /already in the graph/,
    );
    expect(() => new StateGraph(State).addNode("name", node)).toThrow(/also a state key/);
    expect(() => new StateGraph(State).addNode("a:b", node)).toThrow(/not allowed/);
  });

  it("an edge into START or out of END", () => {
    const builder = new StateGraph(State)
      .addNode("a", node)
      .addEdge(START, "a")
      .addEdge("a", START)
      .addEdge("__end__", "a");
    expect(() => builder.compile()).toThrow(/ends at START.*starts at END/);
  });
});
