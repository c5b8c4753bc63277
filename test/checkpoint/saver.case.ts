/**
 * The saver conformance suite: one set of behaviours every checkpointer must show (MemorySaver,
 * SqliteSaver, PostgresSaver). Each saver's test file is one call of `runSaverConformance`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  BaseCheckpointSaver,
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  CheckpointTuple,
} from "../../src/checkpoint/index.js";
import { newId } from "../../src/core/index.js";

export interface SaverFixture {
  saver: BaseCheckpointSaver;
  cleanup(): Promise<void>;
}

export interface SaverConformanceOptions {
  name: string;
  /** Resolves to false (with a loud reason printed) when the backend is unavailable. */
  available?: () => Promise<boolean>;
  newSaver(): Promise<SaverFixture>;
  /**
   * Tests this saver is known to fail, by name, with the reason: they run as `it.fails`, so the
   * suite turns red the day the gap is fixed and the entry must be removed.
   */
  knownGaps?: Record<string, string>;
}

/** A checkpoint with the given values and versions. */
export function checkpointOf(
  values: Record<string, unknown>,
  versions: Record<string, number>,
  seen: Record<string, Record<string, number>> = {},
): Checkpoint {
  return {
    v: 1,
    id: newId(),
    ts: new Date().toISOString(),
    channel_values: values,
    channel_versions: versions,
    versions_seen: seen,
  };
}

export function metadataOf(step: number, extra: Record<string, unknown> = {}): CheckpointMetadata {
  return { source: step < 0 ? "input" : "loop", step, parents: {}, writes: null, ...extra };
}

export function threadConfig(
  threadId: string,
  checkpointId?: string,
  ns?: string,
): CheckpointConfig {
  return {
    configurable: {
      thread_id: threadId,
      ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
      ...(ns !== undefined ? { checkpoint_ns: ns } : {}),
    },
  };
}

async function collect(iterable: AsyncIterable<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export function runSaverConformance(options: SaverConformanceOptions): void {
  describe(`saver conformance: ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    let fixture: SaverFixture;
    let saver: BaseCheckpointSaver;
    let thread = 0;
    const nextThread = () => `t-${process.pid}-${++thread}`;

    beforeAll(async () => {
      if (!available) return;
      fixture = await options.newSaver();
      saver = fixture.saver;
    });
    afterAll(async () => {
      if (available) await fixture.cleanup();
    });

    const test = (name: string, fn: () => Promise<void>) => {
      if (!available) return it.skip(name, fn);
      const gap = options.knownGaps?.[name];
      return gap ? it.fails(`${name} [known gap: ${gap}]`, fn) : it(name, fn);
    };

    test("an unknown thread has no checkpoint", async () => {
      expect(await saver.getTuple(threadConfig("no-such-thread"))).toBeUndefined();
      expect(await collect(saver.list(threadConfig("no-such-thread")))).toEqual([]);
    });

    test("put then getTuple returns the same checkpoint, metadata and address", async () => {
      const id = nextThread();
      const checkpoint = checkpointOf(
        { topic: "x", count: 3, nested: { a: [1, 2, { b: null }] } },
        { topic: 1, count: 1, nested: 1 },
        { node: { topic: 1 } },
      );
      const metadata = metadataOf(-1, { user: "ann" });
      const returned = await saver.put(threadConfig(id), checkpoint, metadata, {
        topic: 1,
        count: 1,
        nested: 1,
      });
      expect(returned.configurable?.checkpoint_id).toBe(checkpoint.id);
      const tuple = await saver.getTuple(threadConfig(id));
      expect(tuple?.checkpoint).toEqual(checkpoint);
      expect(tuple?.metadata).toEqual(metadata);
      expect(tuple?.config.configurable).toEqual({
        thread_id: id,
        checkpoint_ns: "",
        checkpoint_id: checkpoint.id,
      });
      expect(tuple?.parentConfig).toBeUndefined();
      expect(tuple?.pendingWrites).toEqual([]);
    });

    test("a step stores only what changed; unchanged channels keep their value", async () => {
      const id = nextThread();
      const first = checkpointOf({ a: "a1", b: "b1" }, { a: 1, b: 1 });
      const c1 = await saver.put(threadConfig(id), first, metadataOf(-1), { a: 1, b: 1 });
      const second = checkpointOf({ a: "a1", b: "b2" }, { a: 1, b: 2 });
      const c2 = await saver.put(c1, second, metadataOf(0), { b: 2 });
      const latest = await saver.getTuple(threadConfig(id));
      expect(latest?.checkpoint.channel_values).toEqual({ a: "a1", b: "b2" });
      expect(latest?.parentConfig?.configurable?.checkpoint_id).toBe(first.id);
      const old = await saver.getTuple(threadConfig(id, first.id));
      expect(old?.checkpoint.channel_values).toEqual({ a: "a1", b: "b1" });
      // A channel named in newVersions but absent from the values became empty.
      const third = checkpointOf({ a: "a1" }, { a: 1, b: 3 });
      await saver.put(c2, third, metadataOf(1), { b: 3 });
      expect((await saver.getTuple(threadConfig(id)))?.checkpoint.channel_values).toEqual({
        a: "a1",
      });
    });

    test("values come back as fresh copies", async () => {
      const id = nextThread();
      const checkpoint = checkpointOf({ list: [{ n: 1 }] }, { list: 1 });
      await saver.put(threadConfig(id), checkpoint, metadataOf(-1), { list: 1 });
      const read = await saver.getTuple(threadConfig(id));
      const list = read?.checkpoint.channel_values.list as Array<{ n: number }>;
      if (list[0]) list[0].n = 99;
      const again = await saver.getTuple(threadConfig(id));
      expect(again?.checkpoint.channel_values.list).toEqual([{ n: 1 }]);
    });

    test("values JSON cannot carry round-trip", async () => {
      const id = nextThread();
      const values = {
        when: new Date("2024-01-02T03:04:05.006Z"),
        map: new Map<string, unknown>([["k", new Set([1, 2])]]),
        big: 12345678901234567890n,
        bytes: new Uint8Array([1, 2, 3]),
        inf: Number.POSITIVE_INFINITY,
        holes: [1, undefined, 3],
        tagged: { $keel: "not a tag" },
      };
      await saver.put(
        threadConfig(id),
        checkpointOf(values, { when: 1, map: 1, big: 1, bytes: 1, inf: 1, holes: 1, tagged: 1 }),
        metadataOf(-1),
        {
          when: 1,
          map: 1,
          big: 1,
          bytes: 1,
          inf: 1,
          holes: 1,
          tagged: 1,
        },
      );
      expect((await saver.getTuple(threadConfig(id)))?.checkpoint.channel_values).toEqual(values);
    });

    test("a list that grows step after step reads back exactly at every step", async () => {
      const id = nextThread();
      let config = threadConfig(id);
      let messages: Array<{ role: string; text: string }> = [];
      const ids: string[] = [];
      for (let step = 0; step < 80; step++) {
        messages = messages.concat([{ role: step % 2 ? "ai" : "user", text: `message ${step}` }]);
        if (step === 50) messages = messages.slice(10); // not an append: stored whole
        const checkpoint = checkpointOf({ messages, step }, { messages: step + 1, step: step + 1 });
        ids.push(checkpoint.id);
        config = await saver.put(config, checkpoint, metadataOf(step), {
          messages: step + 1,
          step: step + 1,
        });
      }
      expect((await saver.getTuple(threadConfig(id)))?.checkpoint.channel_values.messages).toEqual(
        messages,
      );
      const at30 = await saver.getTuple(threadConfig(id, ids[30]));
      expect(at30?.checkpoint.channel_values.messages).toHaveLength(31);
      expect(at30?.checkpoint.channel_values.step).toBe(30);
      const at60 = await saver.getTuple(threadConfig(id, ids[60]));
      expect(at60?.checkpoint.channel_values.messages).toHaveLength(51);
    });

    test("pending writes: kept per task, ordinary repeats ignored, special writes replaced", async () => {
      const id = nextThread();
      const config = await saver.put(
        threadConfig(id),
        checkpointOf({ a: 1 }, { a: 1 }),
        metadataOf(-1),
        { a: 1 },
      );
      await saver.putWrites(
        config,
        [
          ["a", 2],
          ["b", "x"],
        ],
        "task-b",
      );
      await saver.putWrites(config, [["a", 1]], "task-a");
      await saver.putWrites(config, [["a", 999]], "task-a");
      await saver.putWrites(config, [["__interrupt__", { value: "first" }]], "task-c");
      await saver.putWrites(config, [["__interrupt__", { value: "second" }]], "task-c");
      const tuple = await saver.getTuple(threadConfig(id));
      const sorted = tuple?.pendingWrites.filter(([task]) => task !== "task-c");
      expect(sorted).toEqual([
        ["task-a", "a", 1],
        ["task-b", "a", 2],
        ["task-b", "b", "x"],
      ]);
      expect(tuple?.pendingWrites.filter(([task]) => task === "task-c")).toEqual([
        ["task-c", "__interrupt__", { value: "second" }],
      ]);
    });

    test("putWrites needs a checkpoint id; put needs a thread id", async () => {
      await expect(saver.putWrites(threadConfig("x"), [["a", 1]], "t")).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      await expect(
        saver.put({ configurable: {} }, checkpointOf({}, {}), metadataOf(-1), {}),
      ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    });

    test("list: newest first, limit, before, filter, namespaces", async () => {
      const id = nextThread();
      let config = threadConfig(id);
      const ids: string[] = [];
      for (let step = -1; step < 4; step++) {
        const checkpoint = checkpointOf({ n: step }, { n: step + 2 });
        ids.push(checkpoint.id);
        config = await saver.put(
          config,
          checkpoint,
          metadataOf(step, { parity: Math.abs(step) % 2 }),
          {
            n: step + 2,
          },
        );
      }
      const sub = checkpointOf({ inner: true }, { inner: 1 });
      await saver.put(threadConfig(id, undefined, "child:1"), sub, metadataOf(0), { inner: 1 });
      const all = await collect(saver.list(threadConfig(id, undefined, "")));
      expect(all.map((t) => t.checkpoint.id)).toEqual([...ids].reverse());
      expect(all.map((t) => t.metadata.step)).toEqual([3, 2, 1, 0, -1]);
      const everyNs = await collect(saver.list(threadConfig(id)));
      expect(everyNs.map((t) => t.checkpoint.id).sort()).toEqual([...ids, sub.id].sort());
      const limited = await collect(saver.list(threadConfig(id, undefined, ""), { limit: 2 }));
      expect(limited.map((t) => t.checkpoint.id)).toEqual([ids[4], ids[3]]);
      const before = await collect(
        saver.list(threadConfig(id, undefined, ""), { before: threadConfig(id, ids[2]) }),
      );
      expect(before.map((t) => t.checkpoint.id)).toEqual([ids[1], ids[0]]);
      const filtered = await collect(
        saver.list(threadConfig(id, undefined, ""), { filter: { parity: 1 }, limit: 1 }),
      );
      expect(filtered.map((t) => t.metadata.step)).toEqual([3]);
      expect(
        (await saver.getTuple(threadConfig(id, undefined, "child:1")))?.checkpoint.channel_values,
      ).toEqual({
        inner: true,
      });
    });

    test("a fork that reuses version numbers keeps both branches intact", async () => {
      const id = nextThread();
      const root = checkpointOf({ v: "root" }, { v: 1 });
      const rootConfig = await saver.put(threadConfig(id), root, metadataOf(-1), { v: 1 });
      const main = checkpointOf({ v: "main" }, { v: 2 });
      await saver.put(rootConfig, main, metadataOf(0), { v: 2 });
      const fork = checkpointOf({ v: "fork" }, { v: 2 });
      const forkConfig = await saver.put(rootConfig, fork, metadataOf(0, { source: "fork" }), {
        v: 2,
      });
      const after = checkpointOf({ v: "fork", w: 1 }, { v: 2, w: 3 });
      await saver.put(forkConfig, after, metadataOf(1), { w: 3 });
      expect((await saver.getTuple(threadConfig(id, main.id)))?.checkpoint.channel_values).toEqual({
        v: "main",
      });
      expect((await saver.getTuple(threadConfig(id, fork.id)))?.checkpoint.channel_values).toEqual({
        v: "fork",
      });
      expect((await saver.getTuple(threadConfig(id)))?.checkpoint.channel_values).toEqual({
        v: "fork",
        w: 1,
      });
    });

    test("deleteThread removes one thread and nothing else", async () => {
      const doomed = nextThread();
      const kept = nextThread();
      await saver.put(threadConfig(doomed), checkpointOf({ a: 1 }, { a: 1 }), metadataOf(-1), {
        a: 1,
      });
      await saver.put(threadConfig(kept), checkpointOf({ a: 2 }, { a: 1 }), metadataOf(-1), {
        a: 1,
      });
      await saver.deleteThread(doomed);
      expect(await saver.getTuple(threadConfig(doomed))).toBeUndefined();
      expect((await saver.getTuple(threadConfig(kept)))?.checkpoint.channel_values).toEqual({
        a: 2,
      });
      // The thread can start again from nothing.
      await saver.put(threadConfig(doomed), checkpointOf({ a: 3 }, { a: 1 }), metadataOf(-1), {
        a: 1,
      });
      expect((await saver.getTuple(threadConfig(doomed)))?.checkpoint.channel_values).toEqual({
        a: 3,
      });
    });
  });
}
