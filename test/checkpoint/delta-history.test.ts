/**
 * `getDeltaChannelHistory`, the walk every saver inherits: from a checkpoint's parent up to the
 * nearest ancestor storing the channel, collecting the ancestors' writes oldest first (a step's
 * by task id). Keel's SQL savers inherit it like any other saver.
 */
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/sqlite/index.js";
import {
  Annotation,
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  DeltaChannel,
  DeltaSnapshot,
  END,
  emptyCheckpoint,
  isDeltaSnapshot,
  MemorySaver,
  START,
  StateGraph,
} from "../../src/index.js";
import { sqliteTestStore } from "./support/databases.js";

const meta: CheckpointMetadata = { source: "loop", step: 0, parents: {}, writes: null };

const at = (n: number, values: Record<string, unknown>): Checkpoint => ({
  ...emptyCheckpoint(),
  id: `00000000-0000-7000-8000-00000000000${n}`,
  channel_values: values,
  channel_versions: { list: n + 1 },
});

async function walk(saver: BaseCheckpointSaver) {
  const thread = { configurable: { thread_id: "t", checkpoint_ns: "" } };
  const c0 = await saver.put(thread, at(0, { list: new DeltaSnapshot([0]) }), meta, { list: 1 });
  await saver.putWrites(c0, [["list", [2]]], "task-b");
  await saver.putWrites(c0, [["list", [1]]], "task-a");
  const c1 = await saver.put(c0, at(1, {}), meta, { list: 2 });
  await saver.putWrites(c1, [["list", [3]]], "task-c");
  const c2 = await saver.put(c1, at(2, {}), meta, { list: 3 });
  // The target's own writes belong to the next step: left out.
  await saver.putWrites(c2, [["list", [9]]], "task-d");
  return saver.getDeltaChannelHistory({ config: c2, channels: ["list", "other"] });
}

const expected = [
  ["task-a", "list", [1]],
  ["task-b", "list", [2]],
  ["task-c", "list", [3]],
];

describe("getDeltaChannelHistory", () => {
  it("MemorySaver: seed from the nearest stored value, writes oldest first", async () => {
    const history = await walk(new MemorySaver());
    expect(isDeltaSnapshot(history.list?.seed)).toBe(true);
    expect((history.list?.seed as DeltaSnapshot | undefined)?.value).toEqual([0]);
    expect(history.list?.writes).toEqual(expected);
    expect(history.other).toEqual({ writes: [] });
  });

  it("MemorySaver's own walk agrees with the base walk on a graph's thread", async () => {
    const saver = new MemorySaver();
    const concat = (state: number[], writes: number[][]) => state.concat(...writes);
    const State = Annotation.Root({
      log: new DeltaChannel(concat, { snapshotFrequency: 3 }),
      other: new DeltaChannel(concat),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: [1], other: [5] }))
      .addNode("b", () => ({ log: [2] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile({ checkpointer: saver });
    const thread = { configurable: { thread_id: "g" } };
    for (let turn = 0; turn < 5; turn += 1) await graph.invoke({ log: [turn] }, thread);
    let snapshots = 0;
    for await (const tuple of saver.list(thread)) {
      if (isDeltaSnapshot(tuple.checkpoint.channel_values.log)) snapshots += 1;
      const options = { config: tuple.config, channels: ["log", "other", "none"] };
      const own = await saver.getDeltaChannelHistory(options);
      const base = await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, options);
      expect(own).toEqual(base);
    }
    expect(snapshots).toBeGreaterThan(0);
    expect((await graph.getState(thread)).values.log).toEqual([
      0, 1, 2, 1, 1, 2, 2, 1, 2, 3, 1, 2, 4, 1, 2,
    ]);
  });

  it("SqliteSaver: the same walk", async () => {
    const { store, cleanup } = await sqliteTestStore();
    try {
      if (store.native.dialect !== "sqlite") throw new Error("a SQLite store");
      const history = await walk(new SqliteSaver({ database: store.native.database }));
      expect((history.list?.seed as DeltaSnapshot | undefined)?.value).toEqual([0]);
      expect(history.list?.writes).toEqual(expected);
    } finally {
      await cleanup();
    }
  });
});
