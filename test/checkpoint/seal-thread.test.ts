import { describe, expect, it } from "vitest";
import { jsonSerde } from "../../src/checkpoint/base/index.js";
import { valueHashOf } from "../../src/checkpoint/durable/blob-codec.js";
import type { WriteRow } from "../../src/checkpoint/durable/rows.js";
import {
  type QueuedCheckpoint,
  type QueuedThread,
  sealThread,
} from "../../src/checkpoint/durable/value-map.js";

// sealThread takes the queued writes array as the row's when every write is the parent's (a
// chain step): these pin which writes fold into the row and which go to the writes table when
// they are mixed, in any order.

function write(checkpointId: string, taskId: string, idx: number, channel: string): WriteRow {
  return {
    threadId: "t",
    checkpointNs: "",
    checkpointId,
    taskId,
    idx,
    taskPath: "",
    channel,
    valueJson: jsonSerde.dumps(`${checkpointId}-${idx}`),
    valueHash: "",
  };
}

function checkpoint(id: string, parentId: string | null): QueuedCheckpoint {
  return {
    threadId: "t",
    checkpointNs: "",
    id,
    seq: 2,
    parentId,
    formatVersion: jsonSerde.format,
    step: 1,
    source: "loop",
    metadata: { source: "loop", step: 1, parents: {}, writes: null, thread_id: "t" },
    texts: undefined,
    createdAt: 0,
    belowLatest: 0,
    v: 1,
    ts: "2026-11-28T00:00:00.000Z",
    entries: '"a":[1]',
    seenJson: "{}",
  };
}

function queued(checkpoints: QueuedCheckpoint[], writes: WriteRow[]): QueuedThread {
  return { threadId: "t", checkpoints, blobs: [], writes, tasks: undefined, repeated: false };
}

function foldedOf(channelSeqsJson: string): unknown[] {
  return (JSON.parse(channelSeqsJson) as { w?: unknown[] }).w ?? [];
}

describe("sealThread", () => {
  it("folds the parent's writes into the row and sends the others to the writes table", () => {
    const writes = [
      write("x", "t1", 0, "a"),
      write("p", "t2", 0, "a"),
      write("x", "t1", 1, "b"),
      write("p", "t2", 1, "b"),
    ];
    const batch = sealThread(jsonSerde, queued([checkpoint("c", "p")], writes.slice()));
    expect(batch.writes.map((w) => [w.checkpointId, w.idx])).toEqual([
      ["x", 0],
      ["x", 1],
    ]);
    for (const w of batch.writes) expect(w.valueHash).toBe(valueHashOf(w.valueJson));
    expect(batch.checkpoints).toHaveLength(1);
    expect(foldedOf(batch.checkpoints[0]?.channelSeqsJson ?? "")).toEqual([
      ["t2", 0, "a", '"p-0"'],
      ["t2", 1, "b", '"p-1"'],
    ]);
  });

  it("folds every write when all are the parent's, and leaves the writes table empty", () => {
    const writes = [write("p", "t2", 0, "a"), write("p", "t2", 1, "b")];
    const batch = sealThread(jsonSerde, queued([checkpoint("c", "p")], writes));
    expect(batch.writes).toEqual([]);
    expect(foldedOf(batch.checkpoints[0]?.channelSeqsJson ?? "")).toHaveLength(2);
  });

  it("sends every write to the writes table when no checkpoint is queued", () => {
    const writes = [write("p", "t2", 0, "a"), write("x", "t1", 0, "b")];
    const batch = sealThread(jsonSerde, queued([], writes));
    expect(batch.checkpoints).toEqual([]);
    expect(batch.writes.map((w) => w.checkpointId)).toEqual(["p", "x"]);
    for (const w of batch.writes) expect(w.valueHash).toBe(valueHashOf(w.valueJson));
  });
});
