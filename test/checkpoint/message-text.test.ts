import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { jsonSerde } from "../../src/checkpoint/base/index.js";

/**
 * The serializer's text of a message is written from its fields (message-text-cache.ts) rather
 * than through LangChain's `toJSON`; it must be exactly the text `toJSON` gives.
 */

/**
 * What the serializer writes through `toJSON`: serde.ts's tags for undefined, numbers JSON has
 * not, Dates, Maps and "$keel" keys.
 */
function referenceText(message: BaseMessage): string {
  const tagged = (value: unknown): unknown => {
    if (value === undefined) return { $keel: "undefined" };
    if (typeof value === "number" && !Number.isFinite(value))
      return { $keel: "number", v: String(value) };
    if (value instanceof Date) return { $keel: "date", v: value.toISOString() };
    if (value instanceof Map)
      return { $keel: "map", v: [...value].map(([k, v]) => [tagged(k), tagged(v)]) };
    if (Array.isArray(value)) return value.map(tagged);
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = tagged(item);
    return "$keel" in out ? { $keel: "object", v: out } : out;
  };
  return JSON.stringify({ $keel: "lc", v: tagged(message.toJSON()) });
}

/** Same fields, another class: its aliases rename `tool_call_id`, it has no secrets. */
class AliasedToolMessage extends ToolMessage {
  override get lc_aliases(): Record<string, string> {
    return { ...super.lc_aliases, tool_call_id: "call_ref" };
  }
}

/** Two of its keys are written under one JSON name (`note` is aliased to `tool_call_id`'s). */
class ClashingToolMessage extends ToolMessage {
  override get lc_aliases(): Record<string, string> {
    return { ...super.lc_aliases, note: "tool_call_id" };
  }
}

/** A class with a secret: always written through `toJSON`. */
class SecretHumanMessage extends HumanMessage {
  override get lc_secrets(): Record<string, string> {
    return { "additional_kwargs.token": "TOKEN" };
  }
}

function messages(): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "hello" }),
    new HumanMessage("no id"),
    new SystemMessage({ content: [{ type: "text", text: "be brief" }] }),
    new AIMessage({
      id: "a1",
      content: "",
      tool_calls: [{ id: "c1", name: "pay", args: { amount: 5, to: "bob", note: 'a "quote"' } }],
      additional_kwargs: { function_call: undefined },
      response_metadata: { model: "m", tokens: { in: 3, out: 4 } },
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    }),
    new AIMessageChunk({
      id: "a2",
      content: "part",
      tool_call_chunks: [{ id: "c2", name: "pay", args: '{"amount":', index: 0 }],
    }),
    new AIMessageChunk({ content: "no usage", usage_metadata: undefined }),
    new ToolMessage({ id: "t1", content: "5", tool_call_id: "c1", name: "pay", status: "error" }),
    new ChatMessage({ content: "as a role", role: "critic" }),
    // Objects LangChain escapes (an "lc" key) and the serializer's own tag as a key.
    new AIMessage({ content: "x", additional_kwargs: { nested: { lc: 1, type: "secret" } } }),
    new AIMessage({ content: "x", response_metadata: { $keel: "not a tag" } }),
    new HumanMessage({ content: "x", additional_kwargs: { wrapped: { __lc_escaped__: 1 } } }),
    // A string field that looks like the cache's own marker for an undefined field.
    new HumanMessage({ content: "\u0000undefined" }),
    new AliasedToolMessage({ content: "ok", tool_call_id: "c9" }),
    new AliasedToolMessage({ content: "again", tool_call_id: "c10", name: "pay" }),
    new ClashingToolMessage({ content: "one name", tool_call_id: "c11" }),
    new ClashingToolMessage({
      content: "two keys, one name",
      tool_call_id: "c12",
      note: "n",
    } as ConstructorParameters<typeof ToolMessage>[0]),
    new SecretHumanMessage({ content: "x", additional_kwargs: { token: "t0ps3cret" } }),
  ];
}

describe("a message's serialised text", () => {
  it("is exactly the text LangChain's toJSON gives, for every kind of message and field", () => {
    // Twice: the first message of a class teaches the class, the rest are written from fields.
    for (const round of [1, 2]) {
      for (const message of messages()) {
        expect(jsonSerde.dumps([message]), `round ${round}: ${referenceText(message)}`).toBe(
          `[${referenceText(message)}]`,
        );
      }
    }
  });

  it("of a new message of a known class is written without calling toJSON", () => {
    jsonSerde.dumps([new AIMessage({ content: "teach the class" })]);
    const message = new AIMessage({
      id: "fresh",
      content: "",
      tool_calls: [{ id: "c1", name: "pay", args: { amount: 5 } }],
    });
    const expected = referenceText(message);
    const toJSON = vi.spyOn(message, "toJSON");
    expect(jsonSerde.dumps([message])).toBe(`[${expected}]`);
    expect(toJSON).not.toHaveBeenCalled();
  });

  it("of a message changed in place is written again, changed", () => {
    const message = new AIMessage({ id: "m", content: "before" });
    const before = jsonSerde.dumps([message]);
    message.content = "after";
    const after = jsonSerde.dumps([message]);
    expect(after).not.toBe(before);
    expect(after).toBe(`[${referenceText(message)}]`);
  });

  it("follows every kind of in-place change of a stored message, however deep", () => {
    // Each change leaves the message's JSON different, or equal as JSON but no longer plain
    // JSON (a Map, a Date, NaN, a class instance): the text must be the reference's each time.
    const message = new AIMessage({
      id: "deep",
      content: "",
      tool_calls: [{ id: "c1", name: "pay", args: { amount: 1, to: "bob" } }],
      additional_kwargs: { extra: { a: 1, b: [1, 2] } },
      response_metadata: { model: "m", when: null },
    });
    const kwargs = () => message.additional_kwargs as Record<string, unknown>;
    const extra = () => kwargs().extra as Record<string, unknown>;
    const changes: Array<[string, () => void]> = [
      [
        "a nested argument",
        () => ((message.tool_calls?.[0]?.args as { amount: number }).amount = 2),
      ],
      ["a key added deep down", () => (extra().c = true)],
      [
        "a key's place (deleted, added again)",
        () => {
          const a = extra().a;
          delete extra().a;
          extra().a = a;
        },
      ],
      ["an array grown", () => (extra().b as number[]).push(3)],
      ["an array shrunk", () => (extra().b as number[]).pop()],
      ["an array swapped for a record", () => (extra().b = { 0: 1, 1: 2 })],
      ["null swapped for NaN", () => (message.response_metadata.when = Number.NaN)],
      ["NaN swapped back for null", () => (message.response_metadata.when = null)],
      ["a record swapped for a Map", () => (kwargs().extra = new Map())],
      ["a Map swapped for an empty record", () => (kwargs().extra = {})],
      ["an empty record swapped for a Date (no keys either)", () => (kwargs().extra = new Date(0))],
      ["a string swapped for a Date", () => (message.response_metadata.model = new Date(0))],
      [
        "a Date swapped for its ISO string",
        () => {
          message.response_metadata.model = new Date(0).toISOString();
        },
      ],
      ["a field set to undefined", () => (message.content = undefined as unknown as string)],
      ["a field set to the cache's marker", () => (message.content = "\u0000undefined")],
      ["a key added to lc_kwargs", () => (message.lc_kwargs.name = "named")],
      ["a nested record given an escaped key", () => (extra().lc = 1)],
    ];
    expect(jsonSerde.dumps([message])).toBe(`[${referenceText(message)}]`);
    for (const [what, change] of changes) {
      change();
      const text = jsonSerde.dumps([message]);
      expect(text, what).toBe(`[${referenceText(message)}]`);
      // Unchanged since: the remembered text again, still the reference's.
      expect(jsonSerde.dumps([message]), what).toBe(text);
    }
  });
  it("follows a field read from lc_kwargs alone, and one that read undefined, while remembered", () => {
    // Each step leaves the message cacheable (plain JSON fields), so each check is the
    // remembered text's: a stale one would differ from the reference.
    const message = new AIMessage({ id: "kw", content: "c" });
    const kwargs = message.lc_kwargs as Record<string, unknown>;
    const changes: Array<[string, () => void]> = [
      ["a key of lc_kwargs alone, undefined", () => (kwargs.only_kwargs = undefined)],
      ["that key given a value", () => (kwargs.only_kwargs = { n: 1 })],
      ["its value changed in place", () => ((kwargs.only_kwargs as { n: number }).n = 2)],
      ["set to undefined again", () => (kwargs.only_kwargs = undefined)],
      ["a field that read undefined set", () => (message.name = "now named")],
      ["that field set to undefined again", () => (message.name = undefined)],
    ];
    expect(jsonSerde.dumps([message])).toBe(`[${referenceText(message)}]`);
    for (const [what, change] of changes) {
      change();
      expect(jsonSerde.dumps([message]), what).toBe(`[${referenceText(message)}]`);
      expect(jsonSerde.dumps([message]), what).toBe(`[${referenceText(message)}]`);
    }
  });
});

describe("messages inside a record (a node's update in a checkpoint's metadata)", () => {
  it("are written as in a list, without toJSON, the record's other values as before", () => {
    jsonSerde.dumps([new ToolMessage({ content: "teach", tool_call_id: "c0" })]);
    const message = new ToolMessage({ id: "t2", content: "6", tool_call_id: "c2", name: "add" });
    const toJSON = vi.spyOn(message, "toJSON");
    const update = {
      messages: [message],
      when: new Date(0),
      gone: undefined,
      nested: { deep: { list: [message, 1n] } },
    };
    const text = jsonSerde.dumps(update);
    expect(toJSON).not.toHaveBeenCalled();
    // A record with a "$keel" key of its own is wrapped (through toJSON, as before).
    const own = jsonSerde.dumps({ own: { $keel: "not a tag", message } });
    const m = JSON.parse(referenceText(message)) as unknown;
    expect(JSON.parse(text)).toEqual({
      messages: [m],
      when: { $keel: "date", v: "1970-01-01T00:00:00.000Z" },
      gone: { $keel: "undefined" },
      nested: { deep: { list: [m, { $keel: "bigint", v: "1" }] } },
    });
    expect(JSON.parse(own)).toEqual({
      own: { $keel: "object", v: { $keel: "not a tag", message: m } },
    });
    // A literal with a toJSON of its own is written as its toJSON says, as JSON.stringify does.
    const literal = { toJSON: () => ({ as: "json" }) };
    expect(JSON.parse(jsonSerde.dumps({ messages: [message], literal }))).toEqual({
      messages: [m],
      literal: { as: "json" },
    });
    const back = jsonSerde.loads(text) as typeof update;
    expect(back.messages[0]).toBeInstanceOf(ToolMessage);
    expect(back.when).toEqual(new Date(0));
  });
});
