import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InMemoryStore } from "../../src/checkpoint/base/index.js";
import { Annotation, START, StateGraph } from "../../src/graph/index.js";
import { compileDocument, IrValidationError } from "../../src/ir/index.js";
import {
  CONTEXT_MARKER,
  DecisionMemory,
  DecisionMemoryStore,
  memoryContextKind,
  memoryContextNode,
  memoryStoreProvider,
} from "../../src/memory/index.js";
import { sqliteRuntimeHarness } from "../runtime/support/harness.js";
import { keelInProcess } from "../store/cli-in-process.js";

const harness = sqliteRuntimeHarness();
afterAll(() => harness.cleanup());

const RATIONALE = "Provides ACID transactions and JSONB support";

const State = Annotation.Root({
  question: Annotation<string>(),
  memory_context: Annotation<string>(),
});

describe("the context-injection node", () => {
  it("adds the memory's context for the prompt to the state, once per thread", async () => {
    const store = await harness.open("context-node");
    const memory = new DecisionMemory(store);
    await memory.record({
      title: "Use PostgreSQL for storage",
      target: "database",
      rationale: RATIONALE,
    });
    const graph = new StateGraph(State)
      .addNode("recall", memoryContextNode({ promptField: "question" }))
      .addEdge(START, "recall")
      .compile({ store: new DecisionMemoryStore(store) });
    const ask = (thread: string) =>
      graph.invoke(
        { question: "which postgresql storage?", memory_context: "" },
        { configurable: { thread_id: thread } },
      );
    const first = await ask("t1");
    expect(first.memory_context.startsWith(CONTEXT_MARKER)).toBe(true);
    expect(first.memory_context).toContain("Use PostgreSQL for storage");
    // The thread is the session: what it was given in its last turns is not given again.
    expect((await ask("t1")).memory_context).toBe("");
    expect((await ask("t2")).memory_context).toContain("Use PostgreSQL for storage");
    expect((await memory.events({ kind: "context_injection" })).length).toBe(2);
    // The last message is the prompt when no field is named.
    const messages = await memoryContextNode({ memory })({
      messages: [{ role: "user", content: "postgresql storage please" }],
    });
    expect(messages.memory_context).toContain("Use PostgreSQL");
  });

  it("refuses with MEMORY_UNAVAILABLE when the graph's store is not the decision memory", async () => {
    const graph = new StateGraph(State)
      .addNode("recall", memoryContextNode({ promptField: "question" }))
      .addEdge(START, "recall")
      .compile({ store: new InMemoryStore() });
    await expect(graph.invoke({ question: "anything", memory_context: "" })).rejects.toMatchObject({
      code: "MEMORY_UNAVAILABLE",
    });
  });
});

describe("an IR document's stores binding", () => {
  const doc = (provider = "keel.memory") => ({
    ir_version: "1.1.0",
    id: "graph:recall",
    nodes: [
      { id: "recall", kind: "memory_context", config: { prompt_field: "question" } },
      { id: "note", kind: "note" },
    ],
    stores: [{ name: "memory", provider }],
    state_schema: { question: "str", memory_context: "str?" },
  });
  // A node of the document's own that writes through config.store (the bound memory).
  const note = () => async (_state: unknown, context: { config: { store?: unknown } }) => {
    await (context.config.store as DecisionMemoryStore).put(["notes"], "last", { seen: true });
    return {};
  };

  it("binds keel.memory as the graph's store and feeds the memory_context node kind", async () => {
    const store = await harness.open("ir-binding");
    await new DecisionMemory(store).record({
      title: "Use PostgreSQL for storage",
      target: "database",
      rationale: RATIONALE,
    });
    const compiled = await compileDocument(doc(), {
      nodeKinds: { memory_context: memoryContextKind(), note },
      storeProviders: { "keel.memory": memoryStoreProvider() },
      storeContext: { kernel: store },
    });
    expect(Object.keys(compiled.stores)).toEqual(["memory"]);
    const out = await compiled.graph.invoke({ question: "postgresql storage" });
    expect(out.memory_context).toContain("Use PostgreSQL for storage");
    expect((await new DecisionMemoryStore(store).get(["notes"], "last"))?.value).toEqual({
      seen: true,
    });
  });

  it("leaves a provider nobody offers unbound, and reports one that cannot open", async () => {
    const failure = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (error) {
        if (error instanceof IrValidationError)
          return error.problems.map((p) => `${p.code} ${p.path}`);
        throw error;
      }
      throw new Error("expected a failure");
    };
    const kinds = { memory_context: memoryContextKind(), note };
    const unbound = await compileDocument(doc("acme.vectors"), { nodeKinds: kinds });
    expect(unbound.stores).toEqual({});
    await expect(unbound.graph.invoke({ question: "x" })).rejects.toMatchObject({
      code: "MEMORY_UNAVAILABLE",
    });
    expect(
      await failure(
        compileDocument(doc(), {
          nodeKinds: kinds,
          storeProviders: { "keel.memory": memoryStoreProvider() },
        }),
      ),
    ).toContain("store_binding_failed /stores/0");
  });

  it("keel run binds keel.memory to the run's database (the CLI registers both)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-ir-memory-"));
    try {
      const db = join(dir, "keel.db");
      const recorded = await keelInProcess([
        ...["memory", "record", "--title", "Use PostgreSQL for storage", "--target", "database"],
        ...["--rationale", RATIONALE, "--db", db, "--json"],
      ]);
      expect(recorded.exitCode).toBe(0);
      const file = join(dir, "recall.json");
      const { nodes: _n, ...rest } = doc();
      writeFileSync(
        file,
        JSON.stringify({
          ...rest,
          nodes: [{ id: "recall", kind: "memory_context", config: { prompt_field: "question" } }],
        }),
      );
      const run = await keelInProcess([
        ...["run", file, "--input", '{"question":"postgresql storage"}'],
        ...["--db", db, "--json"],
      ]);
      expect(run.exitCode).toBe(0);
      expect(JSON.stringify(run.json)).toContain("Use PostgreSQL for storage");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
