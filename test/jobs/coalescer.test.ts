/** The coalescer under the queue's shared steps: batching, its cap, keys, failures. */
import { describe, expect, it } from "vitest";
import { Coalescer } from "../../src/jobs/batch/coalescer.js";

describe("the coalescer", () => {
  it("sends a lone request at once, batches what arrives meanwhile, caps a batch, never mixes keys", async () => {
    const batches: string[][] = [];
    let release: () => void = () => {};
    const coalescer = new Coalescer<string, string>(
      async (requests) => {
        batches.push(requests);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return requests.map((r) => r.toUpperCase());
      },
      (r) => (r.startsWith("k") ? r.slice(0, 2) : undefined),
      3,
    );
    const first = coalescer.submit("a");
    expect(batches).toEqual([["a"]]); // out at once, no timer
    const rest = ["b", "k1x", "c", "k2y", "d", "e", "k1z"].map((r) => coalescer.submit(r));
    release();
    expect(await first).toBe("A");
    expect(await Promise.all(rest)).toEqual(["B", "K1X", "C", "K2Y", "D", "E", "K1Z"]);
    // Capped at 3; keyed requests only with their key (unkeyed ones join any batch).
    expect(batches.slice(1)).toEqual([["b", "k1x", "c"], ["k2y", "d", "e"], ["k1z"]]);
  });

  it("a failed batch rejects its own requests only", async () => {
    let calls = 0;
    const coalescer = new Coalescer<number, number>(async (requests) => {
      calls++;
      if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 5));
      if (requests.includes(13)) throw new Error("unlucky");
      return requests;
    });
    const a = coalescer.submit(1);
    const b = coalescer.submit(13);
    const c = coalescer.submit(2);
    expect(await a).toBe(1);
    await expect(b).rejects.toThrow("unlucky");
    await expect(c).rejects.toThrow("unlucky"); // same batch as 13
    expect(await coalescer.submit(3)).toBe(3); // the coalescer goes on
  });
});
