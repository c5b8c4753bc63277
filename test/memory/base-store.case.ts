import { describe, expect, it } from "vitest";
import type { BaseStore } from "../../src/checkpoint/base/index.js";
import { isKeelError } from "../../src/core/index.js";
import { Annotation, START, StateGraph } from "../../src/graph/index.js";

/** A store under test: a fresh one per case (`fresh`), and how to end them. */
export interface BaseStoreHarness {
  readonly name: string;
  fresh(): Promise<BaseStore>;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isKeelError(error)) return error.code;
    throw error;
  }
  throw new Error("expected a failure");
}

/**
 * LangGraph's BaseStore contract, as Keel's InMemoryStore keeps it; every implementation
 * (the memory-backed store on SQLite and Postgres) runs the same cases.
 */
export function runBaseStoreCases(harness: BaseStoreHarness): void {
  describe(`BaseStore contract: ${harness.name}`, () => {
    it("puts, gets, replaces (keeping createdAt) and deletes", async () => {
      const store = await harness.fresh();
      expect(await store.get(["users", "u1"], "prefs")).toBeNull();
      await store.put(["users", "u1"], "prefs", { tea: true, n: 1 });
      const first = await store.get(["users", "u1"], "prefs");
      expect(first).toMatchObject({
        key: "prefs",
        namespace: ["users", "u1"],
        value: { tea: true, n: 1 },
      });
      (first?.value as { n: number }).n = 99; // a copy: the store is not changed
      await tick();
      await store.put(["users", "u1"], "prefs", { tea: false, n: 2 });
      const second = await store.get(["users", "u1"], "prefs");
      expect(second?.value).toEqual({ tea: false, n: 2 });
      expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
      expect(second?.updatedAt.getTime()).toBeGreaterThan(first?.updatedAt.getTime() ?? 0);
      // A short key and one with spaces are keys like any other.
      await store.put(["users", "u1"], "n1", { v: 1 });
      await store.put(["users", "u1"], " n1 ", { v: 2 });
      expect((await store.get(["users", "u1"], "n1"))?.value).toEqual({ v: 1 });
      expect((await store.get(["users", "u1"], " n1 "))?.value).toEqual({ v: 2 });
      await store.delete(["users", "u1"], "prefs");
      expect(await store.get(["users", "u1"], "prefs")).toBeNull();
      await store.delete(["users", "u1"], "prefs"); // nothing to delete: no error
      await tick();
      await store.put(["users", "u1"], "prefs", { tea: true });
      const again = await store.get(["users", "u1"], "prefs");
      expect(again?.createdAt.getTime()).toBeGreaterThan(second?.createdAt.getTime() ?? 0);
    });

    it("searches under a prefix, newest update first, with filters, limit and offset", async () => {
      const store = await harness.fresh();
      await store.put(["docs", "a"], "k1", { tag: "x", n: 1 });
      await tick();
      await store.put(["docs", "b"], "k2", { tag: "y", n: 2 });
      await tick();
      await store.put(["docs", "a", "deep"], "k3", { tag: "x", n: 3 });
      await tick();
      await store.put(["other"], "k4", { tag: "x", n: 4 });
      const keys = async (prefix: string[], options = {}) =>
        (await store.search(prefix, options)).map((item) => item.key);
      expect(await keys(["docs"])).toEqual(["k3", "k2", "k1"]);
      expect(await keys(["docs", "a"])).toEqual(["k3", "k1"]);
      expect(await keys(["docs", "*"])).toEqual(["k3", "k2", "k1"]);
      expect(await keys(["docs"], { filter: { tag: "x" } })).toEqual(["k3", "k1"]);
      expect(await keys(["docs"], { filter: { n: { $gt: 1 } } })).toEqual(["k3", "k2"]);
      expect(await keys(["docs"], { limit: 1, offset: 1 })).toEqual(["k2"]);
      expect(await keys(["nothing"])).toEqual([]);
    });

    it("lists namespaces by prefix, suffix and depth", async () => {
      const store = await harness.fresh();
      await store.put(["users", "u1", "notes"], "n", { v: 1 });
      await store.put(["users", "u2", "notes"], "n", { v: 1 });
      await store.put(["users", "u2", "prefs"], "n", { v: 1 });
      await store.put(["teams", "t1"], "n", { v: 1 });
      expect(await store.listNamespaces()).toEqual([
        ["teams", "t1"],
        ["users", "u1", "notes"],
        ["users", "u2", "notes"],
        ["users", "u2", "prefs"],
      ]);
      expect(await store.listNamespaces({ prefix: ["users"], maxDepth: 2 })).toEqual([
        ["users", "u1"],
        ["users", "u2"],
      ]);
      expect(await store.listNamespaces({ suffix: ["notes"] })).toHaveLength(2);
      expect(await store.listNamespaces({ limit: 1, offset: 1 })).toEqual([
        ["users", "u1", "notes"],
      ]);
      await store.delete(["teams", "t1"], "n");
      expect(await store.listNamespaces({ prefix: ["teams"] })).toEqual([]);
    });

    it("refuses bad namespaces and values with STORE_INVALID", async () => {
      const store = await harness.fresh();
      expect(await code(store.put([], "k", { v: 1 }))).toBe("STORE_INVALID");
      expect(await code(store.put(["a.b"], "k", { v: 1 }))).toBe("STORE_INVALID");
      expect(await code(store.put(["langgraph"], "k", { v: 1 }))).toBe("STORE_INVALID");
      expect(await code(store.put(["ok"], "k", [1] as never))).toBe("STORE_INVALID");
      expect(await store.listNamespaces()).toEqual([]);
    });

    it("is config.store for a graph's nodes, shared across threads", async () => {
      const store = await harness.fresh();
      const State = Annotation.Root({
        user: Annotation<string>(),
        seen: Annotation<number>(),
      });
      const graph = new StateGraph(State)
        .addNode("remember", async (state, config) => {
          const memory = config.store as BaseStore;
          const previous = await memory.get(["users", state.user], "visits");
          const seen = ((previous?.value.count as number | undefined) ?? 0) + 1;
          await memory.put(["users", state.user], "visits", { count: seen });
          return { seen };
        })
        .addEdge(START, "remember")
        .compile({ store });
      expect((await graph.invoke({ user: "ada", seen: 0 })).seen).toBe(1);
      expect((await graph.invoke({ user: "ada", seen: 0 })).seen).toBe(2);
      expect((await store.get(["users", "ada"], "visits"))?.value).toEqual({ count: 2 });
    });
  });
}
