import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { CheckpointMetadata, Serializer } from "../../src/checkpoint/base/index.js";
import { jsonSerde } from "../../src/checkpoint/base/index.js";
import { compactMetadata, expandMetadata } from "../../src/checkpoint/durable/compact-row.js";
import type { WriteRow } from "../../src/checkpoint/durable/rows.js";

// The default serializer compares an update value by value (a primitive's text, any other value's
// `dumps`); any other serializer (here a copy of the default, so not the same object) compares
// the update's text. Both must decide alike.
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

/** One test a case: the default serializer's value-by-value path decides as the text path. */
function decidesAsText(
  cases: ReadonlyArray<[string, Record<string, unknown>]>,
  writes: readonly WriteRow[],
): void {
  for (const [name, updates] of cases) {
    it(`decides as the text comparison does: ${name}`, () => {
      const metadata = metadataOf(updates);
      const fast = compactMetadata(jsonSerde, metadata, row, writes);
      expect(fast).toBe(compactMetadata(textPath, metadata, row, writes));
    });
  }
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
  decidesAsText(cases, writes);

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

describe("compactMetadata of updates holding objects (a node's messages, records, lists)", () => {
  const tool = new ToolMessage({ id: "t1", content: "5", tool_call_id: "c1", name: "add" });
  const ai = new AIMessage({
    id: "a1",
    content: "",
    tool_calls: [{ id: "c1", name: "add", args: { a: 1, b: 2 }, type: "tool_call" }],
  });
  const record = { deep: { list: [1, "x", null] }, $keel: "a user's own key" };
  const writes = [
    write("a", 0, "messages", [tool]),
    write("a", 1, "seen", { n: 1, tags: ["x"] }),
    write("b", 0, "messages", [ai]),
    write("b", 1, "when", new Date(0)),
    write("b", 2, "record", record),
    write("b", 3, "map", new Map([["k", 1n]])),
  ];
  const cases: Array<[string, Record<string, unknown>]> = [
    ["the tool's message", { tools: { messages: [tool] } }],
    ["a message and a record", { tools: { messages: [tool], seen: { n: 1, tags: ["x"] } } }],
    ["the model's message", { agent: { messages: [ai] } }],
    [
      "a Date, a record with a tag-like key, a Map",
      { agent: { messages: [ai], when: new Date(0), record, map: new Map([["k", 1n]]) } },
    ],
    ["two nodes", { tools: { messages: [tool] }, agent: { messages: [ai] } }],
    ["an equal copy of the message", { tools: { messages: [new ToolMessage({ ...tool })] } }],
    ["the message alone, not in a list", { tools: { messages: tool } }],
    ["another message", { tools: { messages: [ai] } }],
    ["a record that differs", { tools: { messages: [tool], seen: { n: 2, tags: ["x"] } } }],
    ["a list for a record", { tools: { messages: [tool], seen: [1] } }],
    ["a Date that differs", { agent: { messages: [ai], when: new Date(1) } }],
    ["an undefined value after an object", { tools: { messages: [tool], seen: undefined } }],
  ];
  decidesAsText(cases, writes);

  it("stores them by reference to the writes, and reads them back equal", () => {
    const updates = {
      tools: { messages: [tool], seen: { n: 1, tags: ["x"] } },
      agent: { messages: [ai], when: new Date(0), record },
    };
    const compact = compactMetadata(jsonSerde, metadataOf(updates), row, writes);
    expect(compact).toBe('{"tools":[0,2],"agent":[1,3]}');
    const back = expandMetadata(
      jsonSerde,
      { metadataJson: compact, source: "loop", step: 3, threadId: "t" } as never,
      writes.map((w) => [w.taskId, w.idx, w.channel, w.valueJson] as const),
    );
    expect(jsonSerde.dumps(back.writes)).toBe(jsonSerde.dumps(updates));
  });

  it("stores an update whole when a message of it changed in place after its write", () => {
    const message = new AIMessage({ id: "m", content: "as written" });
    const own = [write("a", 0, "messages", [message])];
    const metadata = metadataOf({ agent: { messages: [message] } });
    expect(compactMetadata(jsonSerde, metadata, row, own)).toBe('{"agent":[0,1]}');
    message.content = "changed after the write";
    expect(compactMetadata(jsonSerde, metadata, row, own)).toBeUndefined();
    expect(compactMetadata(textPath, metadata, row, own)).toBeUndefined();
    // A nested change too (the message's text is checked against its fields, not its identity).
    const deep = new AIMessage({ id: "d", content: "", additional_kwargs: { x: { y: 1 } } });
    const deepWrites = [write("a", 0, "messages", [deep])];
    const deepMetadata = metadataOf({ agent: { messages: [deep] } });
    expect(compactMetadata(jsonSerde, deepMetadata, row, deepWrites)).toBe('{"agent":[0,1]}');
    (deep.additional_kwargs.x as { y: number }).y = 2;
    expect(compactMetadata(jsonSerde, deepMetadata, row, deepWrites)).toBeUndefined();
  });
});
