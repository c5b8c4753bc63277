import { describe, expect, it } from "vitest";
import type { CheckpointMetadata, Serializer } from "../../src/checkpoint/base/index.js";
import { jsonSerde } from "../../src/checkpoint/base/index.js";
import { compactMetadata } from "../../src/checkpoint/durable/compact-row.js";
import type { WriteRow } from "../../src/checkpoint/durable/rows.js";

// The default serializer compares an update of primitives field by field; any other serializer
// (here a copy of the default, so not the same object) compares the update's text. Both must
// decide alike.
const textPath: Serializer = {
  format: jsonSerde.format,
  dumps: jsonSerde.dumps,
  loads: jsonSerde.loads,
};

const row = { threadId: "t", step: 3, source: "loop" };

function write(taskId: string, idx: number, channel: string, value: unknown): WriteRow {
  return {
    threadId: "t",
    checkpointNs: "",
    checkpointId: "c",
    taskId,
    idx,
    taskPath: "",
    channel,
    valueJson: jsonSerde.dumps(value),
    valueHash: "",
  };
}

function metadataOf(writes: Record<string, unknown> | null): CheckpointMetadata {
  return { source: "loop", step: 3, parents: {}, writes, thread_id: "t" } as CheckpointMetadata;
}

describe("compactMetadata", () => {
  const writes = [
    write("a", 0, "count", 4),
    write("a", 1, "branch:to:n4", null),
    write("b", 0, "label", 'say "hi" \u2028 é'),
    write("b", 1, "done", true),
    write("b", 2, "zero", -0),
  ];
  const cases: Array<[string, Record<string, unknown>]> = [
    ["one number", { n3: { count: 4 } }],
    ["a task's first two writes", { n3: { count: 4, "branch:to:n4": null } }],
    ["the second task", { n3: { label: 'say "hi" \u2028 é', done: true } }],
    ["negative zero as written", { n3: { label: 'say "hi" \u2028 é', done: true, zero: 0 } }],
    ["two nodes", { n3: { count: 4 }, n5: { label: 'say "hi" \u2028 é' } }],
    ["a value that differs", { n3: { count: 5 } }],
    ["keys out of order", { n3: { "branch:to:n4": null, count: 4 } }],
    ["a key no write has", { n3: { count: 4, other: 1 } }],
    ["a number as a string", { n3: { count: "4" } }],
    ["an empty update", { n3: {} }],
    ["a nested value", { n3: { count: { v: 4 } } }],
    ["an undefined value", { n3: { count: 4, skipped: undefined } }],
    ["a tag-like key", { n3: { $keel: 4 } }],
  ];
  for (const [name, updates] of cases) {
    it(`decides as the text comparison does: ${name}`, () => {
      const metadata = metadataOf(updates);
      const fast = compactMetadata(jsonSerde, metadata, row, writes);
      expect(fast).toBe(compactMetadata(textPath, metadata, row, writes));
    });
  }

  it("stores an update of primitives by reference to its writes", () => {
    expect(compactMetadata(jsonSerde, metadataOf({ n3: { count: 4 } }), row, writes)).toBe(
      '{"n3":[0,1]}',
    );
    expect(
      compactMetadata(
        jsonSerde,
        metadataOf({ n3: { label: 'say "hi" \u2028 é', done: true } }),
        row,
        writes,
      ),
    ).toBe('{"n3":[1,2]}');
    expect(
      compactMetadata(jsonSerde, metadataOf({ n3: { count: 5 } }), row, writes),
    ).toBeUndefined();
  });
});
