import { describe, expect, it } from "vitest";
import {
  type Checkpoint,
  type CheckpointMetadata,
  emptyCheckpoint,
  jsonSerde,
  MemorySaver,
} from "../../src/checkpoint/index.js";
import { isKeelError } from "../../src/core/index.js";

const meta = (step: number, source: CheckpointMetadata["source"] = "loop"): CheckpointMetadata => ({
  source,
  step,
  parents: {},
  writes: null,
});

function next(
  prev: Checkpoint,
  values: Record<string, unknown>,
): { checkpoint: Checkpoint; newVersions: Record<string, number> } {
  const checkpoint = emptyCheckpoint();
  checkpoint.channel_values = { ...prev.channel_values, ...values };
  checkpoint.channel_versions = { ...prev.channel_versions };
  const newVersions: Record<string, number> = {};
  for (const key in values) {
    const v = (prev.channel_versions[key] ?? 0) + 1;
    checkpoint.channel_versions[key] = v;
    newVersions[key] = v;
  }
  return { checkpoint, newVersions };
}

describe("MemorySaver", () => {
  it("stores values per channel version and rebuilds each checkpoint", async () => {
    const saver = new MemorySaver();
    const first = next(emptyCheckpoint(), { a: 1, b: [1] });
    const c1 = await saver.put(
      { configurable: { thread_id: "t" } },
      first.checkpoint,
      meta(-1, "input"),
      first.newVersions,
    );
    const second = next(first.checkpoint, { b: [1, 2] });
    const c2 = await saver.put(c1, second.checkpoint, meta(0), second.newVersions);

    const latest = await saver.getTuple({ configurable: { thread_id: "t" } });
    expect(latest?.checkpoint.channel_values).toEqual({ a: 1, b: [1, 2] });
    expect(latest?.config.configurable.checkpoint_id).toBe(second.checkpoint.id);
    expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(first.checkpoint.id);

    const older = await saver.getTuple(c1);
    expect(older?.checkpoint.channel_values).toEqual({ a: 1, b: [1] });
    expect(older?.metadata.source).toBe("input");
    expect(c2.configurable?.checkpoint_id).toBe(second.checkpoint.id);
  });

  it("returns copies, so mutating a loaded value never rewrites history", async () => {
    const saver = new MemorySaver();
    const first = next(emptyCheckpoint(), { list: [1] });
    await saver.put(
      { configurable: { thread_id: "t" } },
      first.checkpoint,
      meta(-1),
      first.newVersions,
    );
    (first.checkpoint.channel_values.list as number[]).push(99);
    const loaded = await saver.getTuple({ configurable: { thread_id: "t" } });
    (loaded!.checkpoint.channel_values.list as number[]).push(2);
    const again = await saver.getTuple({ configurable: { thread_id: "t" } });
    expect(again?.checkpoint.channel_values.list).toEqual([1]);
  });

  it("lists newest first with filter, before and limit", async () => {
    const saver = new MemorySaver();
    let prev = emptyCheckpoint();
    let config = { configurable: { thread_id: "t" } } as { configurable: Record<string, string> };
    const ids: string[] = [];
    for (let step = -1; step < 4; step += 1) {
      const made = next(prev, { n: step });
      config = (await saver.put(
        config,
        made.checkpoint,
        meta(step, step < 0 ? "input" : "loop"),
        made.newVersions,
      )) as typeof config;
      ids.push(made.checkpoint.id);
      prev = made.checkpoint;
    }
    const all = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "t" } }))
      all.push(tuple.metadata.step);
    expect(all).toEqual([3, 2, 1, 0, -1]);

    const limited = [];
    for await (const tuple of saver.list(
      { configurable: { thread_id: "t" } },
      { limit: 2, before: { configurable: { checkpoint_id: ids[3]! } } },
    )) {
      limited.push(tuple.metadata.step);
    }
    expect(limited).toEqual([1, 0]);

    const inputs = [];
    for await (const tuple of saver.list(
      { configurable: { thread_id: "t" } },
      { filter: { source: "input" } },
    ))
      inputs.push(tuple.metadata.step);
    expect(inputs).toEqual([-1]);
  });

  it("keeps pending writes per task: ordinary writes once, special ones replaced", async () => {
    const saver = new MemorySaver();
    const first = next(emptyCheckpoint(), { a: 1 });
    const config = await saver.put(
      { configurable: { thread_id: "t" } },
      first.checkpoint,
      meta(-1),
      first.newVersions,
    );
    await saver.putWrites(
      config,
      [
        ["a", 2],
        ["b", 3],
      ],
      "task-2",
    );
    await saver.putWrites(config, [["a", 1]], "task-1");
    await saver.putWrites(config, [["a", 100]], "task-1");
    await saver.putWrites(config, [["__interrupt__", { value: "first" }]], "task-3");
    await saver.putWrites(config, [["__interrupt__", { value: "second" }]], "task-3");
    const tuple = await saver.getTuple(config);
    expect(tuple?.pendingWrites).toEqual([
      ["task-1", "a", 1],
      ["task-2", "a", 2],
      ["task-2", "b", 3],
      ["task-3", "__interrupt__", { value: "second" }],
    ]);
  });

  it("requires a thread id and a checkpoint id where the contract says so", async () => {
    const saver = new MemorySaver();
    await expect(saver.put({}, emptyCheckpoint(), meta(-1), {})).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(
      saver.putWrites({ configurable: { thread_id: "t" } }, [], "x"),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("deletes a thread and refuses a checkpoint of a newer format", async () => {
    const saver = new MemorySaver();
    const first = next(emptyCheckpoint(), { a: 1 });
    await saver.put(
      { configurable: { thread_id: "t" } },
      first.checkpoint,
      meta(-1),
      first.newVersions,
    );
    await saver.deleteThread("t");
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeUndefined();
    const future = { ...emptyCheckpoint(), v: 99 };
    await expect(
      saver.put({ configurable: { thread_id: "t" } }, future, meta(-1), {}),
    ).rejects.toMatchObject({ code: "CHECKPOINT_FORMAT" });
  });
});

describe("jsonSerde", () => {
  it("round-trips values JSON cannot carry", () => {
    const value = {
      at: new Date(0),
      big: 10n,
      m: new Map([["k", 1]]),
      s: new Set([1]),
      u: undefined,
      inf: Infinity,
      bytes: new Uint8Array([1, 2]),
      $keel: "mine",
    };
    expect(jsonSerde.loads(jsonSerde.dumps(value))).toEqual(value);
  });

  it("refuses functions with a clear error", () => {
    try {
      jsonSerde.dumps({ f: () => 1 });
      expect.unreachable();
    } catch (error) {
      expect(isKeelError(error) && error.code).toBe("CHECKPOINT_NOT_SERIALIZABLE");
    }
  });
});
