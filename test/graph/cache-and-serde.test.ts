import { describe, expect, it } from "vitest";
import { InMemoryCache, MemorySaver } from "../../src/index.js";

describe("InMemoryCache (LangGraph.js's cache port)", () => {
  it("returns stored entries by namespace and key, leaves out missing ones, clears by namespace", async () => {
    const cache = new InMemoryCache<number>();
    await cache.set([
      { key: [["a"], "k"], value: 1 },
      { key: [["b", "c"], "k"], value: 2 },
    ]);
    expect(
      await cache.get([
        [["a"], "k"],
        [["a"], "missing"],
        [["b", "c"], "k"],
      ]),
    ).toEqual([
      { key: [["a"], "k"], value: 1 },
      { key: [["b", "c"], "k"], value: 2 },
    ]);
    await cache.clear([["a"]]);
    expect(
      await cache.get([
        [["a"], "k"],
        [["b", "c"], "k"],
      ]),
    ).toEqual([{ key: [["b", "c"], "k"], value: 2 }]);
    await cache.clear();
    expect(await cache.get([[["b", "c"], "k"]])).toEqual([]);
  });

  it("drops an entry once its ttl has passed", async () => {
    const cache = new InMemoryCache<string>();
    await cache.set([{ key: [["n"], "gone"], value: "x", ttl: -1 }]);
    expect(await cache.get([[["n"], "gone"]])).toEqual([]);
  });
});

describe("saver.serde typed methods", () => {
  it("dumpsTyped/loadsTyped round-trip a checkpoint-like value, and refuse an unknown type", async () => {
    const { serde } = new MemorySaver() as unknown as {
      serde: {
        dumpsTyped(v: unknown): Promise<[string, Uint8Array]>;
        loadsTyped(t: string, d: Uint8Array): Promise<unknown>;
      };
    };
    const value = { id: "1", at: new Date(0), tags: new Set(["a"]) };
    const [type, bytes] = await serde.dumpsTyped(value);
    expect(type).toBe("json");
    expect(await serde.loadsTyped(type, bytes)).toEqual(value);
    await expect(serde.loadsTyped("msgpack", bytes)).rejects.toMatchObject({
      code: "CHECKPOINT_FORMAT",
    });
  });
});
